// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Issue 30: every connection the mock gateway sees end is logged with its reason and counted
/// by reason in `GET /api/stats` (`connections_closed`); the rapid-reset and async-http-client
/// cases are in `ConformanceTests`.
@Suite("Mock: why each connection closed")
struct ConnectionCloseReasonsTests {
    @Test("A TLS failure, an idle timeout and a refusal at the per-address limit are counted by reason in GET /api/stats")
    func reasonsCounted() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--ui-port", "0", "--idle-timeout", "2", "--max-connections-per-peer", "1"])
        let port = try #require(ports["provider"] as? Int)
        let ui = try #require(ports["ui"] as? Int)
        // Plain HTTP/1.1 on the TLS port: the handshake fails.
        let plain = try await ProcessRunner.run("python3", ["-c", """
            import socket
            s = socket.create_connection(("127.0.0.1", \(port)))
            s.sendall(b"GET / HTTP/1.1\\r\\n\\r\\n")
            s.recv(100)
            s.close()
            """])
        #expect(plain.status == 0, "\(plain)")
        // One TLS connection that stays silent (idle timeout), and a second from the same
        // address while it is open (refused at the limit of 1).
        let held = try BackgroundProcess("python3", ["-c", """
            import socket, ssl, sys, time
            context = ssl.create_default_context(cafile="mockca/ca-bundle.pem")
            context.set_alpn_protocols(["h2"])
            tls = context.wrap_socket(socket.create_connection(("127.0.0.1", \(port))), server_hostname="127.0.0.1")
            print("handshake done", flush=True)
            time.sleep(6)  # not a wait: the silence the mock's idle timeout must end
            """], directory: f.dir.path)
        defer { held.kill() }
        try #require(await held.waitForStdoutLine(containing: "handshake done", seconds: 20) != nil, "\(held.stderr)")
        let refused = try await ProcessRunner.run("openssl", ["s_client", "-connect", "127.0.0.1:\(port)", "-alpn", "h2", "-CAfile", "mockca/ca-bundle.pem"],
                                                  stdin: Data(), directory: f.dir.path)
        #expect(refused.stdout.contains("Cipher is (NONE)"), "no handshake: \(refused)")

        @Sendable func closedByReason() async throws -> [String: Int] {
            let stats = try await ProcessRunner.run("curl", ["-s", "http://127.0.0.1:\(ui)/api/stats"])
            let object = try? JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
            return object?["connections_closed"] as? [String: Int] ?? [:]
        }
        let wanted = ["tls-failure": 1, "idle-timeout": 1, "connection-limit": 1]
        let closed = try await Wait.reading(seconds: 20, every: .milliseconds(100), closedByReason, until: { $0 == wanted })
        #expect(closed == wanted, "\(closed)")
        #expect(await server.stop() == 143)
    }
}
