// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Numbers past Int's range in a payload (issue 31, high 1): a Live Activity's `timestamp`,
/// `stale-date`, `dismissal-date` or a schema `Date` of `1e19` was converted with a trapping
/// `Int(...)`, so `lint` and `push` died with SIGILL and one such push killed the mock for
/// every client. Each is a lint finding now; the mock and a batch go on.
@Suite("CLI: numbers past Int's range in lint, push and the mock")
struct ExtremeNumberCLITests {
    static let token = String(repeating: "ce", count: 32)
    static let huge = ["1e19", "18446744073709551615", "9223372036854775808", "1e308", "1e400"]
    static let hugeNegative = ["-1e19", "-9223372036854775809", "-1e308"]

    static func update(timestamp: String, extra: String = "") -> String {
        #"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{}\#(extra)}}"#
    }

    @Test("lint: a timestamp, stale-date, dismissal-date or schema Date past Int's range is a finding, never a crash")
    func lintFindings() async throws {
        let f = try await CLIFixture()
        for number in Self.huge {
            let result = try await f.run("lint", "-", stdin: Self.update(timestamp: number))
            #expect(result.status == 1 && result.stdout.contains("[la-timestamp-milliseconds]"), "\(number): \(result)")
            let dates = try await f.run("lint", "-", stdin: Self.update(timestamp: "1764000000", extra: #","stale-date":\#(number),"dismissal-date":\#(number)"#))
            #expect(dates.status == 1 && dates.stdout.contains("aps.stale-date") && dates.stdout.contains("aps.dismissal-date"), "\(number): \(dates)")
        }
        for number in Self.hugeNegative {
            let result = try await f.run("lint", "-", stdin: Self.update(timestamp: "1764000000", extra: #","stale-date":\#(number)"#))
            #expect(result.status == 0 && result.stdout.contains("[la-stale-date-past]"), "\(number): \(result)")
        }
        // Below another update's timestamp: compared as numbers, not converted.
        _ = try f.dir.write("schema.json", text: #"{"attributes": {}, "content-state": {"kickoff": "Date"}}"#)
        for number in Self.huge + Self.hugeNegative {
            let schema = try await f.run("lint", "-", "--attributes-schema", "schema.json",
                                         stdin: #"{"aps":{"timestamp":1764000000,"event":"update","content-state":{"kickoff":\#(number)}}}"#)
            #expect(schema.status <= 1 && !schema.stderr.contains("Fatal error"), "\(number): \(schema)")
            let expected = number.hasSuffix("e400") ? "[payload-number-range]" : "[la-schema-date-unix]"
            if !number.hasPrefix("-") { #expect(schema.stdout.contains(expected), "\(number): \(schema)") }
        }
        let json = try await f.run("lint", "-", "--format", "json", stdin: Self.update(timestamp: "1e19"))
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any], "\(json)")
        let message = try #require((object["findings"] as? [[String: Any]])?.first?["message"] as? String)
        #expect(message.hasPrefix("aps.timestamp 1e+19 is in milliseconds"), "\(message)")
    }

    @Test("push --no-lint of a 1e19 timestamp: the mock answers, marks it and keeps answering other clients (curl --http2); push with lint refuses it (exit 2)")
    func mockSurvives() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--record", "record.jsonl"])
        defer { server.kill() }
        let provider = try #require(ports["provider"] as? Int)
        let push = ["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app.push-type.liveactivity",
                    "--push-type", "liveactivity", "--priority", "5", "--token", Self.token, "--gateway", "127.0.0.1:\(provider)",
                    "--ca-file", "mockca/ca-bundle.pem"]
        for number in Self.huge + Self.hugeNegative {
            _ = try f.dir.write("la.json", text: Self.update(timestamp: number, extra: #","stale-date":\#(number)"#))
            let sent = try await f.run(push + ["--payload", "la.json", "--no-lint"])
            #expect(sent.status == 0, "\(number): \(sent)")
            #expect(server.isRunning, "the mock died on \(number): \(server.stderr)")
        }
        _ = try f.dir.write("la.json", text: Self.update(timestamp: "1e19"))
        expectFailure(try await f.run(push + ["--payload", "la.json"]), status: 2, mentions: ["la-timestamp-milliseconds"])
        // The flags that become Live Activity dates: past the year 5138 or not finite, a usage error.
        for value in ["1e19", "+1e19", "-1e19", "18446744073709551615", "nan", "inf"] {
            expectFailure(try await f.run(push + ["--live-activity", "update", "--content-state", "{}", "--stale-date=\(value)"]), status: 2,
                          mentions: ["--stale-date"])
        }
        expectFailure(try await f.run(push + ["--live-activity", "update", "--content-state", "{}", "--relevance-score", "nan"]), status: 2,
                      mentions: ["--relevance-score must be a finite number"])
        // Another client, one we did not write, still gets its answer.
        let jwt = try await f.providerToken()
        let curl = try await ProcessRunner.run("curl", ["--http2", "--silent", "--show-error", "--cacert", "mockca/ca-bundle.pem",
                                                        "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.app",
                                                        "--data", #"{"aps":{"alert":"after"}}"#, "--write-out", " %{http_code}",
                                                        "https://127.0.0.1:\(provider)/3/device/\(Self.token)"], directory: f.dir.path)
        #expect(curl.stdout.hasSuffix(" 200"), "\(curl)")
        #expect(server.isRunning, "\(server.stderr)")
    }

    @Test("A batch whose line 500 carries a 1e19 timestamp goes on: 600 results and the summary, with lint (line 500 invalid) and with --no-lint (the mock answers it)")
    func batchGoesOn() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock([])
        defer { server.kill() }
        let provider = try #require(ports["provider"] as? Int)
        let lines = (1...600).map { index in
            index == 500 ? "\(Self.token) \(Self.update(timestamp: "1e19"))" : "\(Self.token) \(Self.update(timestamp: String(1_764_000_000 + index)))"
        }
        _ = try f.dir.write("tokens.txt", text: lines.joined(separator: "\n") + "\n")
        _ = try f.dir.write("base.json", text: Self.update(timestamp: "1764000000"))
        for noLint in [false, true] {
            let results = noLint ? "unlinted.jsonl" : "linted.jsonl"
            let run = try await f.run(["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app.push-type.liveactivity",
                                       "--push-type", "liveactivity", "--priority", "5", "--tokens", "tokens.txt", "--payload", "base.json",
                                       "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem", "--results", results, "--format", "json"]
                                      + (noLint ? ["--no-lint"] : []))
            let summary = try #require(try JSONSerialization.jsonObject(with: run.stdoutData) as? [String: Any], "\(run)")
            #expect(summary["total"] as? Int == 600, "\(summary)")
            let written = String(decoding: try f.dir.read(results), as: UTF8.self).split(separator: "\n")
            #expect(written.count == 600, "\(written.count) results")
            let objects = written.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let invalid = objects.filter { $0["status"] as? String == "invalid" }
            if noLint {
                #expect(objects.filter { $0["status"] as? String == "delivered" }.count == 600, "\(invalid)")
            } else {
                #expect(invalid.count == 1 && (invalid.first?["reason"] as? String)?.contains("la-timestamp-milliseconds") == true, "\(invalid)")
            }
            #expect(server.isRunning, "\(server.stderr)")
        }
    }
}
