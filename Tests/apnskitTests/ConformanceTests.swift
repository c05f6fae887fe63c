// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// The mock judged by clients nobody here wrote (scripts/conformance/mock_conformance.py):
/// PyPI aioapns and httpx[http2] and Debian curl --http2, over a table of requests (curl
/// also manages a broadcast channel and broadcasts to it), each checked for status, reason
/// and what the client itself reports.
@Suite("Conformance: third-party clients against the mock gateway")
struct ConformanceTests {
    static let script = Binaries.packageRoot + "/scripts/conformance/mock_conformance.py"

    @Test("aioapns, httpx and curl get Apple's status and reason for every request in the table")
    func thirdPartyClients() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock(certificates: true)
        let (server, ports) = try await f.startMock(["--channels-port", "0"])
        let port = try #require(ports["provider"] as? Int)
        let channels = try #require(ports["channels"] as? Int)
        let run = try await ProcessRunner.run("python3", [Self.script, f.dir.path, String(port), String(channels)])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("conformance: all cases answered as Apple does"), "\(run.stdout)")
        for client in ["aioapns", "httpx", "curl"] {
            #expect(run.stdout.split(separator: "\n").contains { $0.hasPrefix("ok   \(client)") }, "no \(client) case ran: \(run.stdout)")
        }
        #expect(await server.stop() == 143)
    }
}
