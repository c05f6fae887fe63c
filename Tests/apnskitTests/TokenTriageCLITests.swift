// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `push --diagnose-tokens`, `--invalid-tokens-json` and long Live Activity tokens, end to end:
/// two `mock serve` processes sharing one CA and one device registry, a sandbox one (the one
/// pushed to) and a production one (the other environment); curl --http2 as the third party
/// that confirms what each mock says of a token.
@Suite("CLI: token triage (diagnosis against the other environment, 410 timestamps, token lengths)")
struct TokenTriageCLITests {
    static let production = String(repeating: "a1", count: 32)
    static let sandbox = String(repeating: "b2", count: 32)
    static let unknown = String(repeating: "c3", count: 32)
    static let productionGone = String(repeating: "d4", count: 32)
    static let unknown2 = String(repeating: "e5", count: 32)
    static let goneA = String(repeating: "11", count: 32)
    static let goneB = String(repeating: "22", count: 32)
    static let goneC = String(repeating: "33", count: 32)
    /// An 80-byte Live Activity push token (160 hex digits), as ActivityKit hands them out.
    static let liveActivity = (0..<80).map { String(format: "%02x", ($0 * 37 + 11) & 0xFF) }.joined()
    static let goneAt = 1_700_000_000_000
    /// More production tokens, for runs that stop while many diagnoses wait for their answer.
    static let manyProduction = (0..<20).map { String(repeating: String(format: "%02x", 0x60 + $0), count: 32) }

    static let registry = """
        {"tokens": [
          {"token": "\(production)", "topic": "com.example.app", "environment": "production"},
          {"token": "\(sandbox)", "topic": "com.example.app", "environment": "sandbox"},
          {"token": "\(productionGone)", "topic": "com.example.app", "environment": "production", "unregistered_at_ms": \(goneAt)},
          {"token": "\(goneA)", "topic": "com.example.app", "unregistered_at_ms": \(goneAt)},
          {"token": "\(goneB)", "topic": "com.example.app", "unregistered_at_ms": \(goneAt)},
          {"token": "\(goneC)", "topic": "com.example.app", "unregistered_at_ms": \(goneAt)},
          {"token": "\(liveActivity)", "topic": "com.example.app", "environment": "sandbox"},
        \(manyProduction.map { #"  {"token": "\#($0)", "topic": "com.example.app", "environment": "production"}"# }.joined(separator: ",\n"))
        ]}
        """

    let credentials = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app", "--ca-file", "mockca/ca-bundle.pem"]

    /// The sandbox mock (recording to sandbox.jsonl) and the production one (production.jsonl).
    func mocks(_ f: CLIFixture, production productionOptions: [String] = []) async throws
    -> (sandbox: BackgroundProcess, sandboxPort: Int, production: BackgroundProcess, productionPort: Int) {
        try await f.prepareMock()
        _ = try f.dir.write("registry.json", text: Self.registry)
        let (sandbox, sandboxPorts) = try await f.startMock(["--registry", "registry.json", "--record", "sandbox.jsonl"], portsFile: "sandbox-ports.json")
        let (production, productionPorts) = try await f.startMock(["--environment", "production", "--registry", "registry.json", "--record", "production.jsonl"] + productionOptions,
                                                                  portsFile: "production-ports.json")
        return (sandbox, try #require(sandboxPorts["provider"] as? Int), production, try #require(productionPorts["provider"] as? Int))
    }

    func jsonLines(_ f: CLIFixture, _ name: String) throws -> [[String: Any]] {
        String(decoding: try f.dir.read(name), as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// curl --http2 with a provider token: the status and body the mock gives `token`.
    func curl(_ f: CLIFixture, port: Int, token: String, headers: [String] = ["apns-topic: com.example.app"],
              body: String = #"{"aps":{"alert":"curl"}}"#) async throws -> String {
        let jwt = try await f.providerToken()
        var arguments = ["--http2", "--silent", "--show-error", "--cacert", "mockca/ca-bundle.pem", "-H", "authorization: bearer \(jwt)"]
        for header in headers { arguments += ["-H", header] }
        arguments += ["--data", body, "--write-out", " %{http_code}", "https://127.0.0.1:\(port)/3/device/\(token)"]
        let result = try await ProcessRunner.run("curl", arguments, directory: f.dir.path)
        #expect(result.status == 0, "\(result)")
        return result.stdout
    }

    @Test("A batch with --diagnose-tokens: production tokens found (and delivered there once), neither, a 410 there; files and summary say so; curl agrees")
    func diagnosisBatch() async throws {
        let f = try await CLIFixture()
        let (sandbox, sandboxPort, production, productionPort) = try await mocks(f)
        defer { sandbox.kill(); production.kill() }
        _ = try f.dir.write("tokens.txt", text: [Self.sandbox, Self.production, Self.unknown, Self.production, Self.productionGone].joined(separator: "\n") + "\n")
        let run = try await f.run(["push", "--tokens", "tokens.txt", "--alert", "Hi", "--gateway", "127.0.0.1:\(sandboxPort)",
                                   "--diagnose-tokens", "--diagnose-gateway", "127.0.0.1:\(productionPort)",
                                   "--results", "results.jsonl", "--invalid-tokens", "remove.txt", "--invalid-tokens-json", "remove.jsonl",
                                   "--format", "json"] + credentials)
        #expect(run.status == 1, "\(run)")
        let summary = try #require(try JSONSerialization.jsonObject(with: run.stdoutData) as? [String: Any], "\(run)")
        #expect(summary["delivered"] as? Int == 1 && summary["rejected"] as? Int == 4, "\(summary)")
        #expect(summary["diagnosis_environment"] as? String == "production" && summary["diagnosed"] as? Int == 3, "\(summary)")
        #expect(summary["other_environment_tokens"] as? Int == 3 && summary["delivered_in_other_environment"] as? Int == 1, "\(summary)")
        #expect(summary["diagnosis_limit_reached"] as? Int == 0, "\(summary)")

        // The production mock received the production token's notification exactly once (the repeat was not resent).
        let delivered = try jsonLines(f, "production.jsonl").compactMap { $0["token"] as? String }
        #expect(delivered == [Self.production], "\(delivered)")
        #expect(try jsonLines(f, "sandbox.jsonl").compactMap { $0["token"] as? String } == [Self.sandbox])

        let results = try jsonLines(f, "results.jsonl")
        let diagnoses = results.filter { $0["token"] as? String == Self.production }.compactMap { $0["diagnosis"] as? [String: Any] }
        #expect(diagnoses.count == 2 && diagnoses.filter { $0["delivered"] as? Bool == true }.count == 1
                && diagnoses.filter { $0["repeated"] as? Bool == true }.count == 1, "\(diagnoses)")
        #expect(results.filter { $0["may_have_been_delivered"] as? Bool == true }.count == 1, "\(results)")
        let neither = try #require(results.first { $0["token"] as? String == Self.unknown }?["diagnosis"] as? [String: Any])
        #expect(neither["verdict"] as? String == "neither" && neither["reason"] as? String == "BadDeviceToken", "\(neither)")
        let gone = try #require(results.first { $0["token"] as? String == Self.productionGone }?["diagnosis"] as? [String: Any])
        #expect(gone["verdict"] as? String == "other_environment" && gone["http_status"] as? Int == 410 && gone["timestamp_ms"] as? Int == Self.goneAt, "\(gone)")

        // Remove the token neither knows and the one unregistered in production; never the production token.
        let removal = String(decoding: try f.dir.read("remove.txt"), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(Set(removal) == [Self.unknown, Self.productionGone], "\(removal)")
        let companion = try jsonLines(f, "remove.jsonl")
        let kept = companion.filter { $0["token"] as? String == Self.production }
        #expect(kept.count == 2 && kept.allSatisfy { $0["safe_to_delete"] as? Bool == false && $0["environment"] as? String == "production" }, "\(kept)")
        #expect((kept.first?["advice"] as? String)?.contains("This is a production token: the app that registered it was built for production (TestFlight, App Store") == true, "\(kept)")
        let compare = try #require(companion.first { $0["token"] as? String == Self.productionGone })
        #expect(compare["safe_to_delete"] is NSNull && compare["unregistered_at_ms"] as? Int == Self.goneAt
                && compare["unregistered_at"] as? String == "2023-11-14T22:13:20.000Z", "\(compare)")
        #expect(companion.first { $0["token"] as? String == Self.unknown }?["safe_to_delete"] as? Bool == true)

        // curl, a client we did not write, sees the same: production accepts the token the diagnosis named, the sandbox does not.
        #expect(try await curl(f, port: productionPort, token: Self.production).hasSuffix(" 200"))
        let refused = try await curl(f, port: sandboxPort, token: Self.production)
        #expect(refused.contains("BadDeviceToken") && refused.hasSuffix(" 400"), "\(refused)")
    }

    @Test("One token: the sentence says whose token it is; --diagnose-limit bounds the attempts; usage errors exit 2")
    func singleTokenLimitAndUsage() async throws {
        let f = try await CLIFixture()
        let (sandbox, sandboxPort, production, productionPort) = try await mocks(f)
        defer { sandbox.kill(); production.kill() }
        let diagnose = ["--gateway", "127.0.0.1:\(sandboxPort)", "--diagnose-tokens", "--diagnose-gateway", "127.0.0.1:\(productionPort)"]
        let single = try await f.run(["push", "--token", Self.production, "--alert", "Hi"] + diagnose + credentials)
        #expect(single.status == 1, "\(single)")
        #expect(single.stdout.contains("rejected \(Self.production): 400 BadDeviceToken. This is a production token: the app that registered it was built for production (TestFlight, App Store, Ad Hoc or Enterprise); production accepted it and DELIVERED the notification. Send its notifications to production."), "\(single.stdout)")

        _ = try f.dir.write("unknown.txt", text: "\(Self.unknown)\n\(Self.unknown2)\n")
        let limited = try await f.run(["push", "--tokens", "unknown.txt", "--alert", "Hi", "--diagnose-limit", "1"] + diagnose + credentials)
        #expect(limited.status == 1, "\(limited)")
        #expect(limited.stdout.contains("; token diagnosis against production: 1 tried, 0 production tokens (0 delivered in production), 1 not tried (--diagnose-limit)"), "\(limited.stdout)")

        let target = ["--token", Self.production, "--alert", "Hi", "--gateway", "127.0.0.1:\(sandboxPort)"] + credentials
        expectFailure(try await f.run(["push", "--diagnose-tokens"] + target), status: 2, mentions: ["--diagnose-tokens with --gateway needs --diagnose-gateway HOST:PORT"])
        expectFailure(try await f.run(["push", "--diagnose-gateway", "127.0.0.1:1"] + target), status: 2, mentions: ["apply with --diagnose-tokens"])
        expectFailure(try await f.run(["push", "--diagnose-limit", "0"] + diagnose + target), status: 2, mentions: ["--diagnose-limit must be between 1 and 10000"])
        expectFailure(try await f.run(["push", "--registered-at", "yesterday"] + target), status: 2, mentions: ["--registered-at 'yesterday' is not an ISO 8601"])
        expectFailure(try await f.run(["push", "--tokens", "unknown.txt", "--registered-at", "2026-01-01T00:00:00Z", "--alert", "x",
                                       "--gateway", "127.0.0.1:\(sandboxPort)"] + credentials), status: 2, mentions: ["--registered-at goes with --token"])
    }

    @Test("SIGTERM while a diagnosis is in flight: it gets its answer, and the result with its verdict is written (exit 143)")
    func interruptedDiagnosis() async throws {
        let f = try await CLIFixture()
        // The production mock records a notification before it answers, and holds the answer 3 s.
        let (sandbox, sandboxPort, production, productionPort) = try await mocks(f, production: ["--delay-ms", "3000"])
        defer { sandbox.kill(); production.kill() }
        _ = try f.dir.write("tokens.txt", text: "\(Self.production)\n")
        let push = try BackgroundProcess(Binaries.apnskit, ["push", "--tokens", "tokens.txt", "--alert", "Hi", "--gateway", "127.0.0.1:\(sandboxPort)",
                                                            "--diagnose-tokens", "--diagnose-gateway", "127.0.0.1:\(productionPort)",
                                                            "--results", "results.jsonl", "--invalid-tokens-json", "remove.jsonl"] + credentials,
                                         directory: f.dir.path)
        try #require(await production.waitForFile(f.dir.file("production.jsonl"), seconds: 60), "the diagnosis never reached production: \(push.stderr)")
        #expect(await push.stop() == 143, "\(push.stdout) \(push.stderr)")
        let results = try jsonLines(f, "results.jsonl")
        #expect(results.count == 1 && results.first?["status"] as? String == "rejected", "\(results)")
        let diagnosis = try #require(results.first?["diagnosis"] as? [String: Any], "\(results)")
        #expect(diagnosis["delivered"] as? Bool == true && diagnosis["verdict"] as? String == "other_environment", "\(diagnosis)")
        #expect(try jsonLines(f, "remove.jsonl").first?["safe_to_delete"] as? Bool == false)
        #expect(push.stdout.contains("token diagnosis against production: 1 tried, 1 production tokens (1 delivered in production)"), "\(push.stdout)")
    }

    /// Tokens in `name`, one per line (an `--invalid-tokens` list, missing: none).
    func listed(_ f: CLIFixture, _ name: String) -> Set<String> {
        Set(String(decoding: (try? f.dir.read(name)) ?? [], as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// Before: the diagnosis client retried a request that got no answer in time (the sender's
    /// policy, 6 attempts), so production delivered each notification six times, and the token
    /// it may have been delivered to was listed for deletion.
    @Test("A diagnosis with no answer in time is one try per token, never resent; the token is kept (undetermined, may have been delivered), off --invalid-tokens")
    func diagnosisWithoutAnswer() async throws {
        let f = try await CLIFixture()
        let (sandbox, sandboxPort, production, productionPort) = try await mocks(f, production: ["--delay-ms", "3000"])
        defer { sandbox.kill(); production.kill() }
        let tokens = Array(Self.manyProduction.prefix(3))
        _ = try f.dir.write("tokens.txt", text: tokens.joined(separator: "\n") + "\n")
        let run = try await f.run(["push", "--tokens", "tokens.txt", "--alert", "Hi", "--gateway", "127.0.0.1:\(sandboxPort)", "--timeout", "1",
                                   "--diagnose-tokens", "--diagnose-gateway", "127.0.0.1:\(productionPort)",
                                   "--results", "results.jsonl", "--invalid-tokens", "remove.txt", "--invalid-tokens-json", "remove.jsonl"] + credentials)
        #expect(run.status == 1, "\(run)")
        // Every request production received arrived before push ended; each token once.
        #expect(await Wait.until(seconds: 30) { ((try? jsonLines(f, "production.jsonl")) ?? []).count >= tokens.count })
        let received = try jsonLines(f, "production.jsonl").compactMap { $0["token"] as? String }
        #expect(received.sorted() == tokens.sorted(), "production received \(received.count) requests: \(received)")
        let results = try jsonLines(f, "results.jsonl")
        #expect(results.count == 3 && results.allSatisfy {
            ($0["diagnosis"] as? [String: Any])?["verdict"] as? String == "undetermined" && $0["may_have_been_delivered"] as? Bool == true
        }, "\(results)")
        #expect(listed(f, "remove.txt").isEmpty, "\(listed(f, "remove.txt"))")
        let companion = try jsonLines(f, "remove.jsonl")
        #expect(companion.count == 3 && companion.allSatisfy { $0["safe_to_delete"] as? Bool == false }, "\(companion)")
        #expect((companion.first?["advice"] as? String)?.contains("may have been delivered in production") == true, "\(companion)")
    }

    @Test("A double SIGTERM while diagnoses wait for production: no token production received is listed for deletion or called safe to delete (exit 143)")
    func doubleSignalDuringDiagnosis() async throws {
        let f = try await CLIFixture()
        // Production holds its answers (60 s, the mock's most) past the run's timeout (55 s), so
        // that the signals land while the diagnoses wait, however slowly a loaded machine lets the
        // record reach the test. The signals go once production has recorded its first diagnosis:
        // waiting for half the record took over 30 s at a load of 15 (the run had ended by then).
        let (sandbox, sandboxPort, production, productionPort) = try await mocks(f, production: ["--delay-ms", "60000"])
        defer { sandbox.kill(); production.kill() }
        _ = try f.dir.write("tokens.txt", text: Self.manyProduction.joined(separator: "\n") + "\n")
        let push = try BackgroundProcess(Binaries.apnskit, ["push", "--tokens", "tokens.txt", "--alert", "Hi", "--gateway", "127.0.0.1:\(sandboxPort)",
                                                            "--timeout", "55",
                                                            "--diagnose-tokens", "--diagnose-gateway", "127.0.0.1:\(productionPort)",
                                                            "--results", "results.jsonl", "--invalid-tokens", "remove.txt",
                                                            "--invalid-tokens-json", "remove.jsonl"] + credentials,
                                         directory: f.dir.path)
        defer { push.kill() }
        try #require(await Wait.until(seconds: 60, while: { push.isRunning }) {
            !((try? jsonLines(f, "production.jsonl")) ?? []).isEmpty
        }, "the diagnoses never reached production: \(push.stderr)")
        kill(push.pid, SIGTERM)
        // The second signal after the first was taken (one signal source would merge two sent at
        // once). Not a wait for an event: push prints nothing when it takes the first.
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(await push.stop() == 143, "\(push.stdout) \(push.stderr)")
        let received = Set(try jsonLines(f, "production.jsonl").compactMap { $0["token"] as? String })
        #expect(!received.isEmpty)
        #expect(listed(f, "remove.txt").isDisjoint(with: received), "listed for deletion: \(listed(f, "remove.txt").intersection(received))")
        let unsafe = try jsonLines(f, "remove.jsonl").filter { received.contains($0["token"] as? String ?? "") && $0["safe_to_delete"] as? Bool != false }
        #expect(unsafe.isEmpty, "\(unsafe)")
    }

    /// It hung before: the result thread (registration times) and the command after the batch
    /// (the read error) took the lock the reader holds while it waits on the pipe.
    @Test("A token file on a pipe that stays open: a line's registration time reaches its result, and SIGINT ends the run with every result written")
    func registrationFromAnOpenPipe() async throws {
        let f = try await CLIFixture()
        let (sandbox, sandboxPort, production, _) = try await mocks(f)
        defer { sandbox.kill(); production.kill() }
        let fifo = f.dir.file("tokens.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Two lines, then the writer holds the pipe open (exec: the PID killed is the one holding it).
        let lines = "\(Self.goneA) 2024-01-01T00:00:00Z\\n\(Self.sandbox) 2024-01-01T00:00:00Z\\n"
        let writer = try BackgroundProcess("/bin/sh", ["-c", "exec 3> '\(fifo)'; printf '\(lines)' >&3; exec sleep 600"])
        defer { writer.kill() }
        let push = try BackgroundProcess(Binaries.apnskit, ["push", "--tokens", fifo, "--alert", "Hi", "--gateway", "127.0.0.1:\(sandboxPort)",
                                                            "--results", "results.jsonl", "--invalid-tokens-json", "remove.jsonl"] + credentials,
                                         directory: f.dir.path)
        defer { push.kill() }
        try #require(await sandbox.waitForFile(f.dir.file("sandbox.jsonl"), seconds: 60), "\(push.stderr)")
        // Both lines were read (the second reached the mock); stop the run while the reader waits for a third.
        kill(push.pid, SIGINT)
        let ended = await Wait.until(seconds: 60) { !push.isRunning }
        #expect(ended, "push did not end after SIGINT while its token pipe stayed open: \(push.stderr)")
        guard ended else { return }
        #expect(await push.exited().status == 130, "\(push.stdout) \(push.stderr)")
        let results = try jsonLines(f, "results.jsonl")
        #expect(results.count == 2 && results.filter { $0["status"] as? String == "delivered" }.count == 1, "\(results)")
        let kept = try jsonLines(f, "remove.jsonl")
        #expect(kept.count == 1 && kept.first?["registered_at"] as? String == "2024-01-01T00:00:00.000Z" && kept.first?["safe_to_delete"] as? Bool == false,
                "\(kept)")
    }

    @Test("410 timestamps against registration times: re-registered later is kept off the list, earlier is deleted, unknown is for the caller to compare")
    func unregisteredTimestamps() async throws {
        let f = try await CLIFixture()
        let (sandbox, sandboxPort, production, _) = try await mocks(f)
        defer { sandbox.kill(); production.kill() }
        _ = try f.dir.write("tokens.txt", text: """
            \(Self.goneA) 2024-01-01T00:00:00Z
            \(Self.goneB) 2023-01-01T00:00:00Z {"aps":{"alert":"own payload"}}
            \(Self.goneC)
            \(String(repeating: "44", count: 32)) 2024-13-45T00:00:00Z

            """)
        let run = try await f.run(["push", "--tokens", "tokens.txt", "--alert", "Hi", "--gateway", "127.0.0.1:\(sandboxPort)",
                                   "--invalid-tokens", "remove.txt", "--invalid-tokens-json", "remove.jsonl", "--results", "results.jsonl"] + credentials)
        #expect(run.status == 1, "\(run)")
        #expect(Set(String(decoding: try f.dir.read("remove.txt"), as: UTF8.self).split(separator: "\n").map(String.init)) == [Self.goneB, Self.goneC])
        let companion = Dictionary(uniqueKeysWithValues: try jsonLines(f, "remove.jsonl").map { ($0["token"] as? String ?? "", $0) })
        let kept = try #require(companion[Self.goneA])
        #expect(kept["safe_to_delete"] as? Bool == false && kept["registered_at"] as? String == "2024-01-01T00:00:00.000Z"
                && kept["unregistered_at_ms"] as? Int == Self.goneAt && kept["reason"] as? String == "Unregistered", "\(kept)")
        #expect((kept["advice"] as? String)?.contains("registered this token again") == true, "\(kept)")
        #expect(companion[Self.goneB]?["safe_to_delete"] as? Bool == true, "\(companion)")
        #expect(companion[Self.goneC]?["safe_to_delete"] is NSNull, "\(companion)")
        let invalid = try jsonLines(f, "results.jsonl").first { $0["status"] as? String == "invalid" }
        #expect((invalid?["reason"] as? String)?.contains("is not an ISO 8601 date and time") == true, "\(String(describing: invalid))")
        // One token, its registration time on the command line.
        let single = try await f.run(["push", "--token", Self.goneA, "--registered-at", "2024-01-01T00:00:00Z", "--alert", "Hi",
                                      "--gateway", "127.0.0.1:\(sandboxPort)", "--invalid-tokens", "single.txt", "--force"] + credentials)
        let singleList = try f.dir.read("single.txt")
        #expect(single.status == 1 && singleList.isEmpty, "\(single)")
        // The 410 and its timestamp as curl reads them.
        let answer = try await curl(f, port: sandboxPort, token: Self.goneA)
        #expect(answer.contains(#""reason":"Unregistered","timestamp":1700000000000"#) && answer.hasSuffix(" 410"), "\(answer)")
    }

    @Test("An 80-byte Live Activity token goes through push and curl --http2 to the mock; a token over the bound is refused with a sentence")
    func longLiveActivityToken() async throws {
        let f = try await CLIFixture()
        let (sandbox, sandboxPort, production, _) = try await mocks(f)
        defer { sandbox.kill(); production.kill() }
        #expect(Self.liveActivity.count == 160)
        let pushed = try await f.run(["push", "--token", Self.liveActivity, "--live-activity", "update", "--content-state", #"{"score":1}"#,
                                      "--gateway", "127.0.0.1:\(sandboxPort)", "--format", "json"] + credentials)
        #expect(pushed.status == 0, "\(pushed)")
        let now = Int(Date().timeIntervalSince1970)
        let answer = try await curl(f, port: sandboxPort, token: Self.liveActivity,
                                    headers: ["apns-topic: com.example.app.push-type.liveactivity", "apns-push-type: liveactivity", "apns-priority: 5"],
                                    body: #"{"aps":{"timestamp":\#(now + 1),"event":"update","content-state":{"score":2}}}"#)
        #expect(answer.hasSuffix(" 200"), "\(answer)")
        let records = try jsonLines(f, "sandbox.jsonl").filter { $0["token"] as? String == Self.liveActivity }
        #expect(records.count == 2 && records.allSatisfy { $0["push_type"] as? String == "liveactivity" }, "\(records)")
        let tooLong = String(repeating: "ab", count: 101)
        expectFailure(try await f.run(["push", "--token", tooLong, "--alert", "x", "--gateway", "127.0.0.1:\(sandboxPort)"] + credentials),
                      status: 2, mentions: ["The device token is 101 bytes; tokens of every kind (device, Live Activity, push-to-start) are 8 to 100 bytes"])
    }
}
