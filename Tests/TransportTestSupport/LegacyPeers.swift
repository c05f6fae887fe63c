// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// Legacy binary gateway and feedback service stand-ins: small python3 `ssl` servers (the mock
/// gateway lives in another branch), requiring a client certificate from the test CA.
package enum LegacyPeers {
    package static let script = #"""
import socket, ssl, struct, sys, time
mode, port, cert, key, ca, arg, log = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
ctx.load_verify_locations(ca)
ctx.verify_mode = ssl.CERT_REQUIRED
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(16)
out = open(log, "a", buffering=1)
connection = 0
rejected = False

def read_exact(conn, buf, n):
    while len(buf) < n:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        buf += chunk
    return buf

while True:
    raw, _ = listener.accept()
    try:
        conn = ctx.wrap_socket(raw, server_side=True)
    except Exception:
        raw.close()
        continue
    connection += 1
    try:
        if mode == "feedback":
            count = int(arg)
            data = b""
            for i in range(count):
                token = bytes([i + 1]) * 32
                data += struct.pack(">IH", 1700000000 + i, 32) + token
            conn.sendall(data)
            conn.unwrap()
            conn.close()
            continue
        buf = b""
        frames = 0
        reset = False
        while True:
            if mode == "drop" and connection == 1 and frames >= int(arg):
                out.write("dropped %d\n" % connection)
                break
            buf = read_exact(conn, buf, 1)
            if buf is None:
                break
            if buf[0] == 1:
                # enhanced: 1 | id | expiry | u16 len | token | u16 len | payload
                buf = read_exact(conn, buf, 11)
                if buf is None:
                    break
                (token_length,) = struct.unpack(">H", buf[9:11])
                buf = read_exact(conn, buf, 13 + token_length)
                if buf is None:
                    break
                (payload_length,) = struct.unpack(">H", buf[11 + token_length:13 + token_length])
                buf = read_exact(conn, buf, 13 + token_length + payload_length)
                if buf is None:
                    break
                (identifier,) = struct.unpack(">I", buf[1:5])
                token = buf[11:11 + token_length].hex()
                buf = buf[13 + token_length + payload_length:]
            else:
                buf = read_exact(conn, buf, 5)
                if buf is None:
                    break
                (length,) = struct.unpack(">I", buf[1:5])
                buf = read_exact(conn, buf, 5 + length)
                if buf is None:
                    break
                frame, buf = buf[5:5 + length], buf[5 + length:]
                items, offset = {}, 0
                while offset < len(frame):
                    item, size = frame[offset], struct.unpack(">H", frame[offset + 1:offset + 3])[0]
                    items[item] = frame[offset + 3:offset + 3 + size]
                    offset += 3 + size
                token = items[1].hex()
                (identifier,) = struct.unpack(">I", items[3])
            frames += 1
            if mode == "abrupt" and token == arg and not rejected:
                # As Apple's gateway: the error response, then close at once, the client's
                # unread frames still queued, so the kernel resets the connection.
                rejected = True
                conn.sendall(bytes([8, 8]) + struct.pack(">I", identifier))
                out.write("rejected %d %s\n" % (connection, token))
                reset = True
                break
            if mode == "legacy" and token == arg and not rejected:
                rejected = True
                conn.sendall(bytes([8, 8]) + struct.pack(">I", identifier))
                out.write("rejected %d %s\n" % (connection, token))
                # Drain what the client already sent before closing: closing with unread
                # input makes the kernel send RST, which can destroy the error response
                # before the client reads it.
                conn.settimeout(0.5)
                deadline = time.time() + 3
                try:
                    while time.time() < deadline and conn.recv(65536):
                        pass
                except Exception:
                    pass
                break
            out.write("%d %s\n" % (connection, token))
    except Exception as error:
        out.write("error %s\n" % error)
    if mode == "abrupt" and reset:
        time.sleep(0.3)  # the error response has reached the client
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
        continue
    try:
        conn.shutdown(socket.SHUT_RDWR)
    except Exception:
        pass
    conn.close()
"""#

    /// Starts the server in `mode` ("legacy": rejects token `argument` once with status 8;
    /// "abrupt": the same, but closes with a reset right after the error response, unread
    /// frames and all;
    /// "drop": closes its first connection without a word after `argument` frames;
    /// "feedback": sends `argument` tuples) and returns it, its port and its log file.
    package static func start(mode: String, argument: String) async throws -> (BackgroundProcess, Int, String) {
        let fixtures = Fixtures.shared
        let scriptPath = fixtures.dir + "/legacy_peer.py"
        // Atomically: tests running in parallel may write it at the same time.
        try Data(script.utf8).write(to: URL(fileURLWithPath: scriptPath), options: .atomic)
        let log = fixtures.dir + "/peer-\(UUID().uuidString.prefix(8)).log"
        let server = try await BackgroundProcess.serving(tool("python3")) { port in
            [scriptPath, mode, String(port), fixtures.serverCert, fixtures.serverKey, fixtures.caCert, argument, log]
        }
        return (server, server.port, log)
    }
}


/// A TCP relay in front of a test server that cuts its first connection abruptly once the
/// client has sent `cutAfter` bytes: requests in flight then die with the connection.
package enum DroppingRelay {
    package static let script = #"""
import socket, sys, threading
port, target, cut_after = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(16)
state = {"connections": 0}

def pump(src, dst, limit):
    sent = 0
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
            sent += len(data)
            if limit and sent >= limit:
                break
    except Exception:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except Exception:
            pass
        s.close()

while True:
    client, _ = listener.accept()
    state["connections"] += 1
    try:
        upstream = socket.create_connection(("127.0.0.1", target))
    except Exception:
        client.close()
        continue
    limit = cut_after if state["connections"] == 2 else 0
    threading.Thread(target=pump, args=(client, upstream, limit), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client, 0), daemon=True).start()
"""#

    /// The relay's first accepted connection is the readiness probe, so the second (the
    /// client's first) is the one cut.
    package static func start(target: Int, cutAfter: Int) async throws -> (BackgroundProcess, Int) {
        let path = Fixtures.shared.dir + "/dropping_relay.py"
        // Atomically: tests running in parallel may write it at the same time.
        try Data(script.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        let relay = try await BackgroundProcess.serving(tool("python3")) { port in [path, String(port), String(target), String(cutAfter)] }
        return (relay, relay.port)
    }
}
