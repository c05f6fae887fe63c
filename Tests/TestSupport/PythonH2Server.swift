// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0

/// What the python `h2` test servers share (`HPACKIndexingPeer`, `CloseObservingPeer`): a TLS
/// listener offering ALPN h2 that prints "listening" once it is, and the next real connection
/// (the test's "is it listening" probe, which never handshakes, is skipped), with an h2 server
/// connection that has sent its preface. Put in front of each script.
enum PythonH2Server {
    static let prelude = #"""
import socket, ssl
import h2.config, h2.connection

def tls_listener(port, cert, key):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["h2"])
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(8)
    print("listening", flush=True)
    return listener, context

def next_h2_connection(listener, context):
    while True:
        raw, _ = listener.accept()
        try:
            sock = context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()  # the test's "is it listening" probe
            continue
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding=None))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        return sock, conn

"""#
}
