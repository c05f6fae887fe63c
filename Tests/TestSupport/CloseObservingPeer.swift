// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A python `h2` server that watches how a client ends its connection: whether the client's
/// socket is still open a moment after its TLS close_notify (it waits for the server to close
/// first), or already closed or reset. A client that closes with unread input makes the kernel
/// send RST, which can destroy bytes the server has received and not read yet.
///
/// `PORT CERT KEY OUT`: a TLS (ALPN h2) server that prints "listening" once it is, answers every
/// request 200, and for its first real connection appends one JSON line to OUT once the client
/// ended it: `{"goaway": bool, "socket": "open" | "closed" | "reset"}`, where `socket` is what a
/// peek at the client's side read 100 ms after its close_notify. Then it closes its side.
public enum CloseObservingPeer {
    /// Writes the script into `directory` (once) and returns its path.
    public static func script(in directory: String) throws -> String {
        let path = directory + "/close_observing_peer.py"
        if !FileManager.default.fileExists(atPath: path) {
            try Data(source.utf8).write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    static let source = PythonH2Server.prelude + #"""
import json, os, sys, time
import h2.events, h2.exceptions

def serve(port, cert, key, out):
    listener, context = tls_listener(port, cert, key)
    while True:
        sock, conn = next_h2_connection(listener, context)
        goaway = False
        try:
            while True:
                data = sock.recv(65535)
                if not data:
                    break  # the client's close_notify (or its FIN)
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        conn.send_headers(event.stream_id, [(":status", "200")], end_stream=True)
                    if isinstance(event, h2.events.ConnectionTerminated):
                        goaway = True
                sock.sendall(conn.data_to_send())
        except (ssl.SSLError, OSError, h2.exceptions.ProtocolError):
            pass
        time.sleep(0.1)
        peek = socket.socket(fileno=os.dup(sock.fileno()))
        peek.setblocking(False)
        try:
            state = "closed" if peek.recv(1, socket.MSG_PEEK) == b"" else "open"
        except BlockingIOError:
            state = "open"
        except ConnectionResetError:
            state = "reset"
        peek.close()
        with open(out, "a") as f:
            f.write(json.dumps({"goaway": goaway, "socket": state}) + "\n")
        sock.close()

serve(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4])
"""#
}
