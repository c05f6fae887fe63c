// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A python `h2` peer that reports how each header it received was HPACK-encoded: whether the
/// sender marked it "never indexed" (RFC 7541 section 6.2.3). Our own decoder does not tell,
/// and hpack (the library h2 decodes with) keeps the mark as `NeverIndexedHeaderTuple`.
///
/// - `serve PORT CERT KEY OUT`: a TLS (ALPN h2) server that prints "listening" once it is,
///   answers every request 200 and appends a JSON line `{"role":"request","stream":N,"name":...,"never":bool}` per request
///   header to OUT.
/// - `get PORT CAFILE HOST PATH COUNT`: a client that sends COUNT GET requests one after the
///   other on one connection and prints a JSON line per response header (`"role":"response"`).
public enum HPACKIndexingPeer {
    /// One header as the peer saw it.
    public struct Field: Decodable, Sendable, Equatable {
        public let role: String
        public let stream: Int
        public let name: String
        public let never: Bool
    }

    /// The python3 on PATH (the one scripts/setup.sh installed h2 for), else /usr/bin/python3.
    public static var python: String {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return directories.map { $0 + "/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/python3"
    }

    /// Writes the script into `directory` (once) and returns its path.
    public static func script(in directory: String) throws -> String {
        let path = directory + "/hpack_indexing_peer.py"
        if !FileManager.default.fileExists(atPath: path) {
            try Data(source.utf8).write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    /// The fields in the peer's JSON lines (other lines are ignored).
    public static func fields(in output: String) -> [Field] {
        output.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("{") else { return nil }
            return try? JSONDecoder().decode(Field.self, from: Data(line.utf8))
        }
    }

    static let source = PythonH2Server.prelude + #"""
import json, sys
import h2.events, h2.exceptions
from hpack import NeverIndexedHeaderTuple

def lines(role, stream, headers):
    return "".join(json.dumps({"role": role, "stream": stream, "name": h[0].decode(),
                               "never": isinstance(h, NeverIndexedHeaderTuple)}) + "\n" for h in headers)

def serve(port, cert, key, out):
    listener, context = tls_listener(port, cert, key)
    while True:
        sock, conn = next_h2_connection(listener, context)
        try:
            while True:
                data = sock.recv(65535)
                if not data:
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        with open(out, "a") as f:
                            f.write(lines("request", event.stream_id, event.headers))
                        conn.send_headers(event.stream_id, [(":status", "200")], end_stream=True)
                sock.sendall(conn.data_to_send())
        except (ssl.SSLError, OSError, h2.exceptions.ProtocolError):
            pass
        sock.close()

def get(port, cafile, host, path, count):
    context = ssl.create_default_context(cafile=cafile)
    context.set_alpn_protocols(["h2"])
    sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname=host)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding=None))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    for _ in range(count):
        stream = conn.get_next_available_stream_id()
        conn.send_headers(stream, [(":method", "GET"), (":scheme", "https"), (":authority", host), (":path", path)], end_stream=True)
        sock.sendall(conn.data_to_send())
        done = False
        while not done:
            data = sock.recv(65535)
            if not data:
                sys.exit("the server closed the connection")
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    sys.stdout.write(lines("response", event.stream_id, event.headers))
                if isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                    done = True
            sock.sendall(conn.data_to_send())
    conn.close_connection()
    sock.sendall(conn.data_to_send())
    sock.close()

if sys.argv[1] == "serve":
    serve(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
else:
    get(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))
"""#
}
