#!/usr/bin/env python3
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
"""Hostile HTTP/1.1 peers for the bounds tests of apnskit's small HTTP clients (`mock expect`,
`mock faults`, the webhook of `mock serve --webhook`): Python's own sockets, not apnskit code.
Listens on 127.0.0.1 only; each connection is served on a thread of its own.

  --port-file F     write the port listened on (a free one) to F
  --log F           append one line per connection: "<accepted time> <closed time> <bytes read>"
  --mode M          what each connection gets, once its request head is in:
     big-json       200 with a Content-Length body of --size bytes: "[" then "{}," repeated, "{}]"
     silent         reads the request, never answers (holds the connection until the peer closes)
     trickle        an answer head of --head-bytes (a long header), then the body a byte every
                    --interval seconds, never finishing (Content-Length 1000000)
     late           reads the request, waits --delay seconds, then answers 200 with no body
"""
import argparse
import socket
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--port-file", required=True)
parser.add_argument("--log")
parser.add_argument("--mode", required=True, choices=["big-json", "silent", "trickle", "late"])
parser.add_argument("--size", type=int, default=31 * 1024 * 1024)
parser.add_argument("--head-bytes", type=int, default=100)
parser.add_argument("--interval", type=float, default=1.0)
parser.add_argument("--delay", type=float, default=10.5)
args = parser.parse_args()
lock = threading.Lock()


def read_request(conn):
    """Reads up to the end of the head and a Content-Length body; the bytes read."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def serve(conn):
    accepted = time.time()
    read = b""
    try:
        read = read_request(conn)
        if args.mode == "big-json":
            count = (args.size - 3) // 3
            body = b"[" + b"{}," * count + b"{}]"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        elif args.mode == "silent":
            while conn.recv(65536):
                pass
        elif args.mode == "trickle":
            filler = b"X-Filler: " + b"a" * max(0, args.head_bytes - 80) + b"\r\n"
            conn.sendall(b"HTTP/1.1 200 OK\r\n" + filler + b"Content-Length: 1000000\r\n\r\n")
            while True:
                conn.sendall(b"x")
                time.sleep(args.interval)
        elif args.mode == "late":
            time.sleep(args.delay)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    except OSError:
        pass
    finally:
        conn.close()
        if args.log:
            with lock, open(args.log, "a") as log:
                log.write("%.3f %.3f %d\n" % (accepted, time.time(), len(read)))


listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
import os
os.rename(args.port_file + ".tmp", args.port_file)
while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
