// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// A client over the mock's per-address connection limit (issue 22, Low): the mock closes it
/// at once, and `verify` names the likely cause instead of only "closed the connection".
@Suite("CLI: verify past the mock's per-address connection limit")
struct PeerLimitCLITests {
    @Test("--max-connections-per-peer 1 with one connection held: verify exits 4 and names the connection limit")
    func verifyNamesTheLimit() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock(certificates: true)
        let (server, ports) = try await f.startMock(["--max-connections-per-peer", "1"])
        let provider = try #require(ports["provider"] as? Int)
        let held = try #require(connectIdle(from: "127.0.0.1", to: provider))
        defer { close(held) }
        // The held connection counts once the mock has accepted it: retry (bounded) until a
        // verify is refused, as a first one may slip in before that accept.
        let refused = try await Wait.value(seconds: 30, every: .milliseconds(100)) { () -> ProcessResult? in
            let verify = try await f.run(["verify", "apns.pem", "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem"])
            return verify.status == 4 ? verify : nil
        }
        let verify = try #require(refused, "verify was never refused with one connection held")
        #expect(verify.stderr.contains("closed the connection during the TLS handshake; a server does that when it is at its connection limit (for all clients or for this address)"),
                "\(verify)")
        await #expect(server.stop() == 143)
    }
}
