// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsTransport
import Foundation
import Testing
import TestSupport
import TransportTestSupport

/// `apnskit verify` end to end: the built binary, its output and its exit codes.
@Suite("apnskit verify (CLI)")
struct VerifyCommandTests {
    let fixtures = Fixtures.shared

    /// The apnskit binary next to the test bundle in .build/<triple>/debug.
    var apnskit: String { Binaries.apnskit }

    func verify(_ arguments: [String]) async throws -> ProcessResult {
        #expect(FileManager.default.isExecutableFile(atPath: apnskit), "build apnskit first (swift build)")
        return try await ProcessRunner.run(apnskit, ["verify", fixtures.clientCert, fixtures.clientKey, "--ca-file", fixtures.caCert, "--timeout", "60"] + arguments, combineOutput: true)
    }

    func mock() throws -> HTTP2Server {
        try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity, clientCA: fixtures.caCert)) { request in
            HTTP2Response(status: 400, headers: [("apns-id", UUID().uuidString.lowercased())], body: Array(#"{"reason":"BadDeviceToken"}"#.utf8))
        }
    }

    @Test func acceptedExitsZeroWithJSON() async throws {
        let server = try mock()
        defer { server.stop() }
        let result = try await verify(["--gateway", "localhost:\(server.port)", "--format", "json"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(#""outcome" : "accepted""#), "\(result.output)")
        #expect(result.output.contains(#""reason" : "BadDeviceToken""#))
    }

    @Test func acceptedTextShowsTheSteps() async throws {
        let server = try mock()
        defer { server.stop() }
        let result = try await verify(["--gateway", "localhost:\(server.port)"])
        #expect(result.status == 0, "\(result.output)")
        for needle in ["TLS handshake completed: TLSv1.3", "ALPN: the server chose h2", "Server certificate 0: CN=localhost",
                       "chain verified", "matches the host name", "accepted the client certificate", "400 BadDeviceToken", "result: accepted"] {
            #expect(result.output.contains(needle), "missing \(needle) in \(result.output)")
        }
    }

    @Test func rejectedCertificateExitsOne() async throws {
        let server = try mock()
        defer { server.stop() }
        let result = try await ProcessRunner.run(apnskit, ["verify", fixtures.otherClientCert, fixtures.otherClientKey, "--ca-file", fixtures.caCert,
                                                          "--gateway", "localhost:\(server.port)"], combineOutput: true)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("unknown_ca"))
    }

    @Test func closedPortExitsFour() async throws {
        let closed = ReservedPort()
        defer { withExtendedLifetime(closed) {} }
        let result = try await verify(["--gateway", "127.0.0.1:\(closed.port)"])
        #expect(result.status == 4, "\(result.output)")
        #expect(result.output.contains("connection refused"))
    }

    @Test func silentServerExitsFourAfterTheTimeout() async throws {
        let listener = SilentListener()
        let result = try await verify(["--gateway", "127.0.0.1:\(listener.port)", "--timeout", "1"])
        #expect(result.status == 4, "\(result.output)")
        #expect(result.output.contains("did not complete the TLS handshake within 1 second"))
        _ = listener
    }

    @Test func usageErrorsExitTwo() async throws {
        let result = try await ProcessRunner.run(apnskit, ["verify", "--auth-key", fixtures.authKey], combineOutput: true)
        #expect(result.status == 2, "\(result.output)")
    }
}
