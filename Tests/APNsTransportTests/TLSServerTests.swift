// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsTransport
import Foundation
import Testing
import TestSupport
import TransportTestSupport

/// The plain TLS server (legacy gateway / feedback mocks) with our TLS client and s_client.
@Suite("TLS server")
struct TLSServerTests {
    let fixtures = Fixtures.shared

    /// Answers each read with "ok <count>" and the client's certificate UID, then closes.
    func start() throws -> TLSServer {
        try TLSServer.start(tls: .server(identity: try fixtures.serverIdentity, clientCA: fixtures.caCert)) { connection in
            guard let bytes = try? await connection.read(timeout: 5) else { connection.close(); return }
            let uid = connection.clientCertificate?.subject.first("UID") ?? "-"
            connection.write(Array("ok \(bytes.count) \(uid)".utf8))
            connection.close()
        }
    }

    @Test func clientExchangesBytesAndSeesTheClose() async throws {
        let server = try start()
        defer { server.stop() }
        let client = try await TLSClient.connect(to: Endpoint(host: "localhost", port: server.port),
                                                 tls: .client(identity: try fixtures.clientIdentity, trust: .caFile(fixtures.caCert)))
        defer { client.close() }
        #expect(client.handshake.chainVerified)
        #expect(client.handshake.alpn == nil)
        client.write([2, 0, 0, 0, 3, 1, 2, 3])
        let answer = try await client.read(timeout: 10)
        #expect(answer.map { String(decoding: $0, as: UTF8.self) } == "ok 8 \(Fixtures.bundleID)")
        let end = try await client.read(timeout: 10)
        #expect(end == nil)
    }

    @Test func opensslClientWithTheRightCertificateIsVerified() async throws {
        let server = try start()
        defer { server.stop() }
        let result = try await ProcessRunner.run(tool("openssl"), ["s_client", "-connect", "127.0.0.1:\(server.port)", "-CAfile", fixtures.caCert,
                                                                  "-cert", fixtures.clientCert, "-key", fixtures.clientKey, "-verify_return_error"], combineOutput: true)
        #expect(result.output.contains("Verify return code: 0 (ok)"), "\(result.output)")
    }

    @Test func clientFromAnotherCAGetsAnAlert() async throws {
        let server = try start()
        defer { server.stop() }
        let client = try await TLSClient.connect(to: Endpoint(host: "localhost", port: server.port),
                                                 tls: .client(identity: try fixtures.otherClientIdentity, trust: .caFile(fixtures.caCert)))
        defer { client.close() }
        await #expect {
            _ = try await client.read(timeout: 10)
        } throws: { error in
            guard case .tlsAlert(let alert)? = (error as? TransportError)?.kind else { return false }
            return alert == .unknownCA
        }
    }
}
