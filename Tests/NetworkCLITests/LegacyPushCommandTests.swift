// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
import TransportTestSupport

/// `apnskit push --legacy` and `apnskit feedback` end to end against python3 `ssl` servers
/// speaking the legacy binary protocol (apns-protocol.md §4 and §5).
@Suite("apnskit push --legacy and feedback (CLI)")
struct LegacyPushCommandTests {
    let fixtures = Fixtures.shared

    var apnskit: String { Binaries.apnskit }

    func token(_ i: Int) -> String { String(format: "%064x", i + 1) }

    @Test func errorInTheMiddleIsReportedAndLaterOnesResent() async throws {
        let bad = token(500)
        let (server, port, log) = try await LegacyPeers.start(mode: "legacy", argument: bad)
        defer { server.kill() }
        let dir = fixtures.dir + "/legacy-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(((0..<1000).map(token).joined(separator: "\n")) .utf8).write(to: URL(fileURLWithPath: dir + "/tokens.txt"))
        let result = try await ProcessRunner.run(apnskit, ["push", fixtures.clientCert, fixtures.clientKey, "--ca-file", fixtures.caCert, "--legacy",
                                                          "--gateway", "localhost:\(port)", "--tokens", dir + "/tokens.txt", "--alert", "legacy",
                                                          "--results", dir + "/results.jsonl", "--invalid-tokens", dir + "/remove.txt", "--format", "json"], combineOutput: true)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains(#""delivered":999"#), "\(result.output)")
        #expect(result.output.contains(#""rejected":1"#), "\(result.output)")
        let lines = try String(contentsOfFile: dir + "/results.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1000)
        let rejected = lines.filter { $0.contains(#""status":"rejected""#) }
        #expect(rejected.count == 1)
        #expect(rejected.first?.contains(bad) == true)
        #expect(rejected.first?.contains(#""reason":"Invalid token""#) == true)
        #expect(try String(contentsOfFile: dir + "/remove.txt", encoding: .utf8) == bad + "\n")

        // The server saw every good token exactly once; those after the bad one on a new connection.
        let received = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("rejected") }
        let tokens = received.map { String($0.split(separator: " ")[1]) }
        #expect(tokens.count == 999, "\(received.prefix(5))")
        #expect(Set(tokens).count == 999)
        #expect(!tokens.contains(bad))
        let afterBad = received.filter { $0.hasSuffix(token(501)) }
        #expect(afterBad.count == 1 && !afterBad[0].hasPrefix("1 "), "\(afterBad)")
    }

    /// Apple's gateway closes right after its error response; with the client's later frames
    /// unread, the close is a reset. An error response that reached the client before the
    /// reset is read, not lost with the connection: one rejection, nothing resent in doubt.
    /// (One still in flight when the reset comes is lost with it: then the client resends
    /// what was in flight, flagged possibly duplicated, and the gateway rejects the bad token
    /// again, as the "drop" test shows.)
    @Test func errorResponseBeforeAResetIsStillRead() async throws {
        let count = 5_000
        let bad = token(20)
        let (server, port, log) = try await LegacyPeers.start(mode: "abrupt", argument: bad)
        defer { server.kill() }
        let dir = fixtures.dir + "/legacy-reset-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(((0..<count).map(token).joined(separator: "\n")) .utf8).write(to: URL(fileURLWithPath: dir + "/tokens.txt"))
        let result = try await ProcessRunner.run(apnskit, ["push", fixtures.clientCert, fixtures.clientKey, "--ca-file", fixtures.caCert, "--legacy",
                                                          "--gateway", "localhost:\(port)", "--tokens", dir + "/tokens.txt", "--alert", "legacy",
                                                          "--format", "json"], combineOutput: true)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains(#""delivered":\#(count - 1)"#), "\(result.output)")
        #expect(result.output.contains(#""rejected":1"#), "\(result.output)")
        #expect(result.output.contains(#""possibly_duplicated":0"#), "\(result.output)")
        let received = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("rejected") }
        let tokens = received.map { String($0.split(separator: " ")[1]) }
        #expect(tokens.count == count - 1 && Set(tokens).count == count - 1, "\(received.count) frames logged, \(Set(tokens).count) distinct")
    }

    @Test func enhancedFormatErrorIsReportedToo() async throws {
        let bad = token(100)
        let (server, port, log) = try await LegacyPeers.start(mode: "legacy", argument: bad)
        defer { server.kill() }
        let dir = fixtures.dir + "/legacy-enhanced-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(((0..<200).map(token).joined(separator: "\n")).utf8).write(to: URL(fileURLWithPath: dir + "/tokens.txt"))
        let result = try await ProcessRunner.run(apnskit, ["push", fixtures.clientCert, fixtures.clientKey, "--ca-file", fixtures.caCert, "--legacy",
                                                          "--legacy-format", "enhanced", "--gateway", "localhost:\(port)", "--tokens", dir + "/tokens.txt",
                                                          "--alert", "legacy", "--format", "json"], combineOutput: true)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains(#""delivered":199"#), "\(result.output)")
        let received = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("rejected") }
        #expect(Set(received.map { String($0.split(separator: " ")[1]) }).count == 199)
    }

    @Test func connectionClosedWithoutErrorResendsAndFlagsDuplicates() async throws {
        let (server, port, log) = try await LegacyPeers.start(mode: "drop", argument: "300")
        defer { server.kill() }
        let dir = fixtures.dir + "/legacy-drop-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(((0..<1000).map(token).joined(separator: "\n")).utf8).write(to: URL(fileURLWithPath: dir + "/tokens.txt"))
        let result = try await ProcessRunner.run(apnskit, ["push", fixtures.clientCert, fixtures.clientKey, "--ca-file", fixtures.caCert, "--legacy",
                                                          "--gateway", "localhost:\(port)", "--tokens", dir + "/tokens.txt", "--alert", "legacy",
                                                          "--results", dir + "/results.jsonl", "--format", "json"], combineOutput: true)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(#""delivered":1000"#), "\(result.output)")
        #expect(!result.output.contains(#""possibly_duplicated":0,"#), "\(result.output)")
        let lines = try String(contentsOfFile: dir + "/results.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1000)
        let flagged = Set(lines.filter { $0.contains(#""possibly_duplicated":true"#) }.map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])??["token"] as? String ?? ""
        })
        // Every token arrived; any that arrived twice is flagged in the results.
        let received = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("dropped") }
        var counts: [String: Int] = [:]
        for line in received { counts[String(line.split(separator: " ")[1]), default: 0] += 1 }
        #expect(counts.count == 1000)
        #expect(counts.filter { $0.value > 1 }.keys.allSatisfy { flagged.contains($0) })
    }

    @Test func simpleFormatPayloadLimitIsCheckedBeforeSending() async throws {
        let long = String(repeating: "x", count: 300)
        let result = try await ProcessRunner.run(apnskit, ["push", fixtures.clientCert, fixtures.clientKey, "--legacy", "--legacy-format", "simple",
                                                          "--gateway", "127.0.0.1:1", "--token", token(1), "--alert", long], combineOutput: true)
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains("256"), "\(result.output)")
    }

    @Test func legacyClosedPortExitsFour() async throws {
        let closed = ReservedPort()
        defer { withExtendedLifetime(closed) {} }
        let result = try await ProcessRunner.run(apnskit, ["push", fixtures.clientCert, fixtures.clientKey, "--legacy",
                                                          "--gateway", "127.0.0.1:\(closed.port)", "--token", token(1), "--alert", "x"], combineOutput: true)
        #expect(result.status == 4, "\(result.output)")
    }

    @Test func feedbackPrintsTuples() async throws {
        let (server, port, _) = try await LegacyPeers.start(mode: "feedback", argument: "3")
        defer { server.kill() }
        let text = try await ProcessRunner.run(apnskit, ["feedback", fixtures.clientCert, fixtures.clientKey, "--ca-file", fixtures.caCert,
                                                        "--gateway", "localhost:\(port)"], combineOutput: true)
        #expect(text.status == 0, "\(text.output)")
        #expect(text.output.contains("2023-11-14T22:13:20Z " + String(repeating: "01", count: 32)), "\(text.output)")
        #expect(text.output.split(separator: "\n").count == 3, "\(text.output)")
        let json = try await ProcessRunner.run(apnskit, ["feedback", fixtures.clientCert, fixtures.clientKey, "--ca-file", fixtures.caCert,
                                                        "--gateway", "localhost:\(port)", "--format", "json"], combineOutput: true)
        #expect(json.status == 0, "\(json.output)")
        #expect(json.output.contains(#""count":3"#), "\(json.output)")
    }

    @Test func feedbackWithNoTuplesExitsZero() async throws {
        let (server, port, _) = try await LegacyPeers.start(mode: "feedback", argument: "0")
        defer { server.kill() }
        let result = try await ProcessRunner.run(apnskit, ["feedback", fixtures.clientCert, fixtures.clientKey, "--ca-file", fixtures.caCert,
                                                          "--gateway", "localhost:\(port)"], combineOutput: true)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.isEmpty, "\(result.output)")
    }

    @Test func feedbackClosedPortExitsFour() async throws {
        let closed = ReservedPort()
        defer { withExtendedLifetime(closed) {} }
        let result = try await ProcessRunner.run(apnskit, ["feedback", fixtures.clientCert, fixtures.clientKey,
                                                          "--gateway", "127.0.0.1:\(closed.port)"], combineOutput: true)
        #expect(result.status == 4, "\(result.output)")
    }
}
