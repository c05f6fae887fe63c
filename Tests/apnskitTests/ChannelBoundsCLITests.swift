// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// The mock's channel store (issue 22): bundle ids by Apple's rule, and a cap over all of them.
/// curl is the client, with a provider token from `apnskit token create`.
@Suite("CLI: the mock's channel store bounds (issue 22)", .serialized)
struct ChannelBoundsCLITests {
    private func create(_ f: CLIFixture, port: Int, bundle: String, token: String,
                        body: String = #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#) throws -> (status: String, reason: String?) {
        let answer = try ProcessRunner.run("/usr/bin/curl", [
            "--http2", "--silent", "--show-error", "--max-time", "30", "--cacert", "mockca/ca-bundle.pem",
            "-H", "authorization: bearer \(token)", "--data", body,
            "--write-out", "\n%{http_code}", "https://127.0.0.1:\(port)/1/apps/\(bundle)/channels",
        ], directory: f.dir.path)
        let parts = answer.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let body = parts.dropLast().joined(separator: "\n")
        let reason = (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["reason"] as? String
        return (String(parts.last ?? ""), reason)
    }

    @Test("A bundle id outside Apple's rule (10 KB, a percent sign, an empty label, a space) is 400 BadTopic and stores nothing")
    func invalidBundleIDsRefused() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--channels-port", "0", "--record", "record.jsonl"])
        let port = try #require(ports["channels"] as? Int)
        let jwt = try await f.providerToken()
        for bundle in [String(repeating: "a", count: 10_000), "com.ex%2Fample", "com..example", "com.example%20app", String(repeating: "b", count: 156)] {
            let answer = try create(f, port: port, bundle: bundle, token: jwt)
            #expect(answer.status == "400" && answer.reason == "BadTopic", "\(bundle.prefix(40)): \(answer)")
        }
        let valid = try create(f, port: port, bundle: "com.Example-2.app", token: jwt)
        #expect(valid.status == "201", "\(valid)")
        #expect(String(decoding: try f.dir.read("record.jsonl"), as: UTF8.self).split(separator: "\n").count == 1, "only the valid create is recorded")
        await #expect(server.stop() == 143)
    }

    @Test("--max-channels-total 5 over three bundle ids: the sixth create is CannotCreateChannelConfig; a delete makes room")
    func globalCap() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--channels-port", "0", "--max-channels", "2", "--max-channels-total", "5"])
        let port = try #require(ports["channels"] as? Int)
        let jwt = try await f.providerToken()
        var statuses: [String] = []
        for bundle in ["com.a.app", "com.a.app", "com.b.app", "com.b.app", "com.c.app"] {
            statuses.append(try create(f, port: port, bundle: bundle, token: jwt).status)
        }
        #expect(statuses == Array(repeating: "201", count: 5))
        let over = try create(f, port: port, bundle: "com.d.app", token: jwt)
        #expect(over.status == "400" && over.reason == "CannotCreateChannelConfig", "\(over)")
        let manage = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--bundle-id", "com.c.app",
                      "--ca-file", "mockca/ca-bundle.pem", "--gateway", "127.0.0.1:\(port)"]
        let listed = try await f.run(["channels", "list", "--format", "json"] + manage)
        let channel = try #require(((try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["channels"] as? [String])?.first, "\(listed)")
        await #expect(try f.run(["channels", "delete", channel] + manage).status == 0)
        #expect(try create(f, port: port, bundle: "com.d.app", token: jwt).status == "201")
        await #expect(server.stop() == 143)
    }

    @Test("message-storage-policy must be the integer 0 or 1: true and 1.0 are InvalidPolicy")
    func policyIsAnInteger() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--channels-port", "0"])
        let port = try #require(ports["channels"] as? Int)
        let jwt = try await f.providerToken()
        for policy in ["true", "1.0", "false", "0.0", "\"1\"", "2"] {
            let answer = try create(f, port: port, bundle: "com.example.app", token: jwt,
                                    body: #"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#)
            #expect(answer.status == "400" && answer.reason == "InvalidPolicy", "\(policy): \(answer)")
        }
        for policy in ["0", "1"] {
            let answer = try create(f, port: port, bundle: "com.example.app", token: jwt,
                                    body: #"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#)
            #expect(answer.status == "201", "\(policy): \(answer)")
        }
        await #expect(server.stop() == 143)
    }

    @Test("mock issue --auth-key --scope topics: refuses a repeated or malformed bundle id with exit 2")
    func scopeTopicsChecked() async throws {
        let f = try await CLIFixture()
        await #expect(try f.run(["mock", "ca", "-o", "mockca"]).status == 0)
        for scope in ["topics:com.a.app,com.a.app", "topics:com.a.app,<x>", "topics:com.ex%2Fample", "topics:com..app"] {
            let refused = try await f.run(["mock", "issue", "--auth-key", "--ca", "mockca", "--team-id", "TEAM123456", "--scope", scope, "-o", "."])
            #expect(refused.status == 2 && refused.stderr.contains("with each bundle id once"), "\(scope): \(refused)")
        }
        let issued = try await f.run(["mock", "issue", "--auth-key", "--ca", "mockca", "--team-id", "TEAM123456", "--scope", "topics:com.a.app,com.b.app", "-o", "."])
        #expect(issued.status == 0, "\(issued)")
    }
}
