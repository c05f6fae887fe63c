// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 32: `close()` returning means nothing of the client runs any more, so a process may
/// exit right after it. Before, with the gateway down, a connect could still be making its TLS
/// context (`SSL_CTX_new_ex`, loading the system trust store) when the process exited, and
/// OpenSSL's cleanup at exit freed what it used: a segfault now and then (4 of 30 runs in the
/// soak; 2 of 30 with this test against the code before the fix).
@Suite("Exit right after close() never crashes", .serialized)
struct ExitAfterCloseTests {
    /// `apnskit push` over 8 connections to a port that refuses every connect, with the system
    /// trust store (a TLS context that takes a while to make): the batch fails fast on the
    /// first slot's outage while the other slots still connect, then the CLI closes the client
    /// and exits at once. 30 runs, as in the soak.
    @Test("apnskit push with the gateway down: 30 runs, each exits 4 with its sentence, none crashes", .timeLimit(.minutes(5)))
    func pushWithTheGatewayDown() async throws {
        let f = try GatewayFixture()
        let pem = try f.dir.write("apns.pem", try f.identity(.development).combinedPEM())
        let tokens = try f.dir.write("tokens.txt", text: (1...40).map { String(format: "%064x", $0) }.joined(separator: "\n") + "\n")
        // Bound and never listened on: every connect is refused at once, and the port stays
        // this test's for the whole run (no other process can take it meanwhile).
        let (refusing, port) = bindLoopbackTCP()
        defer { close(refusing) }
        var crashes: [String] = []
        for run in 1...30 {
            let result = try await Binaries.apnskit(["push", pem, "--gateway", "127.0.0.1:\(port)", "--tokens", tokens,
                                                     "--connections", "8", "--alert", "hi"])
            if result.status != 4 { crashes.append("run \(run): exit \(result.status) \(result.stderr.suffix(300))") }
            #expect(result.stderr.contains("connection refused"), "run \(run): \(result.stderr.suffix(500))")
        }
        #expect(crashes.isEmpty, "\(crashes.count) of 30 runs did not exit 4: \(crashes)")
    }
}
