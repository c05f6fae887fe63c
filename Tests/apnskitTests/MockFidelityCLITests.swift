// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `mock serve` and `mock issue` where they once differed from Apple or from their own docs.
@Suite("CLI: mock fidelity (record durability, auth-key folder, server names)")
struct MockFidelityCLITests {
    @Test("kill -9 after N answered notifications leaves N lines in --record; a token-auth batch copes with the 1-stream start")
    func recordSurvivesKill() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--record", "record.jsonl"])
        let port = try #require(ports["provider"] as? Int)
        let count = 40
        let tokens = (0..<count).map { String(format: "%064x", $0 + 1) }.joined(separator: "\n") + "\n"
        _ = try f.dir.write("tokens.txt", text: tokens)
        let push = try await f.run("push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app",
                             "--tokens", "tokens.txt", "--alert", "x", "--gateway", "127.0.0.1:\(port)", "--ca-file", "mockca/ca-bundle.pem")
        #expect(push.status == 0, "\(push)")
        // SIGKILL: no flush, no close; only what was written before each answer left survives.
        await server.stop(signal: SIGKILL)
        let lines = String(decoding: try f.dir.read("record.jsonl"), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == count, "\(lines.count) lines for \(count) answered notifications")
        let recorded = Set(lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["token"] as? String })
        #expect(recorded == Set(tokens.split(separator: "\n").map(String.init)))
    }

    @Test("mock issue --auth-key -o NEWDIR creates the folder and writes NEWDIR/AuthKey_<KEYID>.p8 (0600)")
    func authKeyIntoNewFolder() async throws {
        let f = try await CLIFixture()
        #expect(try await f.run("mock", "ca", "-o", "mockca").status == 0)
        let issued = try await f.run("mock", "issue", "--auth-key", "--ca", "mockca", "--team-id", "TEAM123456", "--key-id", "ABC123DEFG", "-o", "keys")
        #expect(issued.status == 0, "\(issued)")
        #expect(try f.dir.mode("keys/AuthKey_ABC123DEFG.p8") == 0o600)
        let named = try await f.run("mock", "issue", "--auth-key", "--ca", "mockca", "--team-id", "TEAM123456", "--key-id", "XYZ123DEFG", "-o", "my.p8")
        #expect(named.status == 0, "\(named)")
        #expect(try f.dir.mode("my.p8") == 0o600)
    }

    @Test("The mock's server certificate verifies for api.development.push.apple.com (openssl verify -verify_hostname)")
    func serverCertificateNames() async throws {
        let f = try await CLIFixture()
        #expect(try await f.run("mock", "ca", "-o", "mockca").status == 0)
        for name in ["api.development.push.apple.com", "api.sandbox.push.apple.com", "api.push.apple.com"] {
            let result = try await f.openssl("verify", "-CAfile", "mockca/ca-bundle.pem", "-verify_hostname", name, "mockca/server.pem")
            #expect(result.status == 0, "\(name): \(result)")
        }
    }

    @Test("mock issue --auth-key --scope registers the key's scope; a bad scope is a usage error")
    func authKeyScopes() async throws {
        let f = try await CLIFixture()
        #expect(try await f.run("mock", "ca", "-o", "mockca").status == 0)
        let production = try await f.run("mock", "issue", "--auth-key", "--ca", "mockca", "--key-id", "PROD000001", "--scope", "production", "-o", ".")
        #expect(production.status == 0 && production.stdout.contains("production only"), "\(production)")
        let topics = try await f.run("mock", "issue", "--auth-key", "--ca", "mockca", "--key-id", "TOPIC00001", "--scope", "topics:com.a.app,com.b.app", "-o", ".")
        #expect(topics.status == 0 && topics.stdout.contains("topic-specific: com.a.app, com.b.app"), "\(topics)")
        let registered = try JSONSerialization.jsonObject(with: Data(try f.dir.read("mockca/auth-keys/TOPIC00001.json"))) as? [String: Any]
        #expect(registered?["topics"] as? [String] == ["com.a.app", "com.b.app"])
        let environment = try JSONSerialization.jsonObject(with: Data(try f.dir.read("mockca/auth-keys/PROD000001.json"))) as? [String: Any]
        #expect(environment?["environments"] as? [String] == ["production"])
        let bad = try await f.run("mock", "issue", "--auth-key", "--ca", "mockca", "--scope", "everything", "-o", ".")
        #expect(bad.status == 2 && bad.stderr.contains("--scope 'everything' must be team, sandbox, production or topics:"), "\(bad)")
    }

    @Test("push/verify/channels --key-scope refuse locally what APNs would refuse, with its reason; the mock agrees")
    func keyScopeRefusedLocally() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        #expect(try await f.run("mock", "issue", "--auth-key", "--ca", "mockca", "--team-id", "TEAM123456", "--key-id", "PROD000001",
                          "--scope", "production", "-o", ".").status == 0)
        let (server, ports) = try await f.startMock(["--channels-port", "0"])
        let port = try #require(ports["provider"] as? Int)
        let token = String(repeating: "ab", count: 32)
        let target = ["--gateway", "127.0.0.1:\(port)", "--ca-file", "mockca/ca-bundle.pem"]
        let production = ["--auth-key", "AuthKey_PROD000001.p8", "--team-id", "TEAM123456"]
        let local = try await f.run(["push", "--token", token, "--topic", "com.example.app", "--alert", "x", "--key-scope", "production"] + production + target)
        #expect(local.status == 1 && local.stderr.contains("BadEnvironmentKeyIdInToken") && local.stderr.contains("limited to production"), "\(local)")
        // Without --key-scope the request goes out and the (sandbox) mock answers the same reason.
        let remote = try await f.run(["push", "--token", token, "--topic", "com.example.app", "--alert", "x", "--format", "json"] + production + target)
        #expect(remote.status == 1 && remote.stdout.contains("BadEnvironmentKeyIdInToken"), "\(remote)")
        let team = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456"]
        let topics = try await f.run(["verify", "--topic", "com.other.app", "--key-scope", "topics:com.example.app"] + team + target)
        #expect(topics.status == 1 && topics.stderr.contains("TopicDisallowed"), "\(topics)")
        // The fix fits the limit: a topic mismatch is not mended by --environment (issue 22).
        #expect(topics.stderr.contains("Use a key whose topics include com.other.app (or a team key), or --topic com.example.app.")
                && !topics.stderr.contains("--environment"), "\(topics)")
        #expect(local.stderr.contains("Use a key for sandbox (or a team key), or --environment production."), "\(local)")
        let channels = try await f.run(["channels", "list", "--bundle-id", "com.example.app", "--key-scope", "sandbox", "--environment", "production"] + production
                                 + ["--gateway", "127.0.0.1:\(try #require(ports["channels"] as? Int))", "--ca-file", "mockca/ca-bundle.pem"])
        #expect(channels.status == 1 && channels.stderr.contains("limited to sandbox"), "\(channels)")
        let bad = try await f.run(["push", "apns.pem", "--token", token, "--key-scope", "team"] + target)
        #expect(bad.status == 2 && bad.stderr.contains("--key-scope describes an --auth-key key"), "\(bad)")
        #expect(await server.stop() == 143)
    }
}
