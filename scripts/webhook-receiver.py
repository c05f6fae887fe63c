#!/usr/bin/env python3
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
"""A webhook receiver for `apnskit mock serve --webhook` tests (and for trying it by hand):
Python's own http.server, not apnskit code, so the mock's POSTs are read by a peer we did not
write.

Each POST's body is appended to --out as one line (the JSON as received, then a newline), and
flushed before the answer goes out, so a line in the file means the POST arrived and was
answered 2xx (a POST answered 500 is recorded in --failed-out instead, if given).

  --port P          listen on 127.0.0.1:P (0: a free one; the port is written to --port-file)
  --fail-first N    answer the first N POSTs 500 (then 204)
  --stall-file F    while F exists, accept POSTs but do not answer them (hold the request)
  --status S        answer S instead of 204 once past --fail-first (e.g. 404)
  --cert F --key K  speak https with this certificate and key (PEM)
"""
import argparse
import http.server
import os
import ssl
import sys
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--port-file", required=True)
parser.add_argument("--out", required=True)
parser.add_argument("--failed-out")
parser.add_argument("--fail-first", type=int, default=0)
parser.add_argument("--stall-file")
parser.add_argument("--status", type=int, default=204)
parser.add_argument("--cert")
parser.add_argument("--key")
args = parser.parse_args()

lock = threading.Lock()
posts = 0


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        global posts
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        while args.stall_file and os.path.exists(args.stall_file):
            time.sleep(0.05)
        with lock:
            posts += 1
            failing = posts <= args.fail_first
            target = args.failed_out if failing else args.out
            if target:
                with open(target, "ab") as out:
                    out.write(body.replace(b"\n", b" ") + b"\n")
                    out.flush()
        status = 500 if failing else args.status
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()

    def log_message(self, *_):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Receiver)
server.daemon_threads = True
if args.cert:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(args.port_file + ".tmp", args.port_file)
try:
    server.serve_forever()
except KeyboardInterrupt:
    sys.exit(0)
