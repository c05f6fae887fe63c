// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `push --connections N --event-loops N`: the connections on several threads still deliver
/// every notification exactly once, and a bad count is a usage error.
@Suite("CLI: push --event-loops")
struct PushEventLoopsCLITests {
    @Test("push --connections 2 --event-loops 2 delivers every token once (the mock's record proves it); --event-loops 0 is exit 2")
    func twoLoopsDeliverEverything() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--record", "record.jsonl"])
        defer { server.kill() }
        let port = try #require(ports["provider"] as? Int)
        let count = 300
        let tokens = (0..<count).map { String(format: "%064x", $0 + 1) }
        _ = try f.dir.write("tokens.txt", text: tokens.joined(separator: "\n") + "\n")
        let common = ["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app",
                      "--tokens", "tokens.txt", "--alert", "x", "--gateway", "127.0.0.1:\(port)", "--ca-file", "mockca/ca-bundle.pem"]
        let push = try await f.run(common + ["--connections", "2", "--event-loops", "2", "--concurrency", "10", "--format", "json"])
        #expect(push.status == 0, "\(push)")
        let summary = try JSONSerialization.jsonObject(with: Data(push.stdout.utf8)) as? [String: Any]
        #expect(summary?["delivered"] as? Int == count, "\(push.stdout)")
        let lines = String(decoding: try f.dir.read("record.jsonl"), as: UTF8.self).split(separator: "\n")
        let recorded = lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["token"] as? String }
        #expect(recorded.count == count && Set(recorded) == Set(tokens), "\(recorded.count) recorded for \(count) tokens")
        let bad = try await f.run(common + ["--event-loops", "0"])
        #expect(bad.status == 2 && bad.stderr.contains("--event-loops must be between 1 and 64."), "\(bad)")
    }
}
