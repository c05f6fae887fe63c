#!/usr/bin/env python3
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
"""The pattern async-http-client was seen sending (issue 30): RST_STREAM(CANCEL) for a stream
whose whole answer has been read. On one TLS connection to a running `apnskit mock serve`
(loopback only, bounded by COUNT), requests go out in batches of 50; each answer is read to its
END_STREAM, then the client resets that (closed) stream with CANCEL. A server that counted
these resets as a rapid-reset flood would end the connection with GOAWAY.

Python's h2 keeps the client's stream states and refuses to reset a closed stream, so the
RST_STREAM frames are written from hyperframe beside it (h2 does not need to know of them).

Usage: reset_after_answer.py PORT CA_FILE TOKEN COUNT
Prints one JSON line: {"requests", "answered", "ok", "resets_sent", "goaway", "goaway_code", "seconds"}.
"""

import json
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events
import hyperframe.frame

PORT, CA, TOKEN, COUNT = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
BATCH = 50
BODY = b'{"aps":{"alert":"reset after answer"}}'

context = ssl.create_default_context(cafile=CA)
context.set_alpn_protocols(["h2"])
started = time.monotonic()
sent = answered = ok = resets = 0
goaway = None
with socket.create_connection(("127.0.0.1", PORT), timeout=30) as raw, context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    connection.initiate_connection()
    tls.sendall(connection.data_to_send())

    def send_request():
        global sent
        stream = connection.get_next_available_stream_id()
        connection.send_headers(stream, [(":method", "POST"), (":scheme", "https"), (":authority", f"127.0.0.1:{PORT}"),
                                         (":path", "/3/device/" + "ab" * 32), ("authorization", "bearer " + TOKEN),
                                         ("apns-topic", "com.example.app"), ("apns-push-type", "alert")])
        connection.send_data(stream, BODY, end_stream=True)
        sent += 1

    send_request()  # a token connection offers one stream until its first success
    in_flight = 1
    while goaway is None and (sent < COUNT or in_flight) and time.monotonic() - started < 300:
        tls.sendall(connection.data_to_send())
        chunk = tls.recv(65536)
        if not chunk:
            break
        cancel = b""
        for event in connection.receive_data(chunk):
            if isinstance(event, h2.events.ResponseReceived):
                ok += dict(event.headers).get(b":status") == b"200"
            elif isinstance(event, h2.events.DataReceived):
                connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                answered += 1
                in_flight -= 1
                frame = hyperframe.frame.RstStreamFrame(event.stream_id)
                frame.error_code = 8  # CANCEL
                cancel += frame.serialize()
                resets += 1
            elif isinstance(event, h2.events.ConnectionTerminated):
                goaway = event
        outgoing = connection.data_to_send()
        tls.sendall(outgoing + cancel)
        limit = min(BATCH, connection.remote_settings.max_concurrent_streams)
        while goaway is None and sent < COUNT and in_flight < limit:
            send_request()
            in_flight += 1
print(json.dumps({"requests": sent, "answered": answered, "ok": ok, "resets_sent": resets, "goaway": goaway is not None,
                  "goaway_code": getattr(goaway.error_code, "name", goaway.error_code) if goaway else None,
                  "seconds": round(time.monotonic() - started, 2)}))
