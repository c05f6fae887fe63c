// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// The mock judged by clients nobody here wrote (scripts/conformance/mock_conformance.py): PyPI
/// aioapns, httpx[http2], kalyke-apns, apns2-up and mopyapns, Debian curl --http2 and nghttp,
/// Python's h2 driven by hand, and async-http-client (the AHCConformance test executable), over
/// a table of requests each checked for status, reason and what the client itself reports;
/// curl also manages a broadcast channel and broadcasts to it.
@Suite("Conformance: third-party clients against the mock gateway")
struct ConformanceTests {
    static let script = Binaries.packageRoot + "/scripts/conformance/mock_conformance.py"
    static let flood = Binaries.packageRoot + "/scripts/conformance/rapid_reset_flood.py"
    static let resetAfterAnswer = Binaries.packageRoot + "/scripts/conformance/reset_after_answer.py"
    /// The async-http-client program, built beside apnskit.
    static var ahc: String { URL(fileURLWithPath: Binaries.apnskit).deletingLastPathComponent().appendingPathComponent("AHCConformance").path }
    static let clients = ["aioapns", "httpx", "curl", "nghttp", "h2", "ahc", "kalyke", "apns2-up", "mopyapns"]

    @Test("Nine independent clients get Apple's status and reason for every request in the table, and the mock marks the unusual tokens it serves")
    func thirdPartyClients() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock(certificates: true)
        let (server, ports) = try await f.startMock(["--channels-port", "0", "--record", "record.jsonl", "--ui-port", "0"])
        let port = try #require(ports["provider"] as? Int)
        let channels = try #require(ports["channels"] as? Int)
        let ui = try #require(ports["ui"] as? Int)
        let run = try await ProcessRunner.run("python3", [Self.script, f.dir.path, String(port), String(channels), f.dir.file("record.jsonl")],
                                              environment: ["AHC_CONFORMANCE": Self.ahc])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("conformance: all cases answered as Apple does"), "\(run.stdout)")
        for client in Self.clients {
            #expect(run.stdout.split(separator: "\n").contains { $0.hasPrefix("ok   \(client) ") }, "no \(client) case ran: \(run.stdout)")
        }
        #expect(!run.stdout.contains("FAIL"), "\(run.stdout)")
        // The inbox shows the same marks as the record (the script checked the record's).
        let inbox = try await ProcessRunner.run("curl", ["-s", "http://127.0.0.1:\(ui)/api/notifications?status=accepted&limit=1000"])
        let entries = (try JSONSerialization.jsonObject(with: Data(inbox.stdout.utf8)) as? [String: Any])?["notifications"] as? [[String: Any]] ?? []
        let marked = entries.filter { (($0["token_marks"] as? [[String: Any]]) ?? []).contains { $0["mark"] as? String == "jwt-iat-string" } }
        #expect(marked.count >= 11, "APNSwift-style (10 push types) and kalyke-apns sends marked in the inbox: \(marked.count)")
        #expect(await server.stop() == 143)
    }

    /// 20,000 async-http-client requests share one connection; so do 20,000 requests each
    /// followed by RST_STREAM(CANCEL) once the answer is read (the pattern async-http-client was
    /// seen sending: such resets are free); a flood of resets of unanswered streams is still
    /// ended; `GET /api/stats` counts the connections closed by reason.
    @Test("async-http-client and resets after the answer: 20,000 requests each on one connection, no GOAWAY; a rapid-reset flood is ended with GOAWAY ENHANCE_YOUR_CALM",
          .timeLimit(.minutes(8)))
    func resetsOfAnsweredStreamsAreFreeAndFloodsAreEnded() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock(certificates: true)
        let (server, ports) = try await f.startMock(["--record", "record.jsonl", "--ui-port", "0", "--no-lint"])
        let port = try #require(ports["provider"] as? Int)
        let ui = try #require(ports["ui"] as? Int)
        let ca = f.dir.file("mockca/ca-bundle.pem")
        let token = try await f.providerToken()
        let request = #"{"path": "/3/device/\#(String(repeating: "ab", count: 32))", "headers": {"authorization": "bearer \#(token)", "apns-topic": "com.example.app", "apns-push-type": "alert"}, "body": "{\"aps\":{\"alert\":\"hi\"}}"}"#
        let run = try await ProcessRunner.run(Self.ahc, ["repeat", String(port), ca, "20000", "10"], stdin: Data(request.utf8))
        #expect(run.status == 0, "\(run)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run)")
        #expect(summary["answered"] as? Int == 20000 && summary["ok"] as? Int == 20000 && summary["failed"] as? Int == 0, "\(summary)")

        let resets = try await ProcessRunner.run("python3", [Self.resetAfterAnswer, String(port), ca, token, "20000"])
        let reset = try #require(try JSONSerialization.jsonObject(with: Data(resets.stdout.utf8)) as? [String: Any], "\(resets)")
        #expect(reset["answered"] as? Int == 20000 && reset["resets_sent"] as? Int == 20000 && reset["goaway"] as? Bool == false, "\(reset)")

        // Every request recorded: 20,000 on each client's one connection.
        var perConnection: [Int: Int] = [:]
        for line in try f.dir.read("record.jsonl").split(separator: 0x0A) {
            if let connection = (try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])?["connection"] as? Int {
                perConnection[connection, default: 0] += 1
            }
        }
        #expect(perConnection.values.sorted() == [20000, 20000], "\(perConnection)")

        let flood = try await ProcessRunner.run("python3", [Self.flood, String(port), ca, f.dir.file("apns.pem"), "20000"])
        let ended = try #require(try JSONSerialization.jsonObject(with: Data(flood.stdout.utf8)) as? [String: Any], "\(flood)")
        #expect(ended["goaway"] as? Bool == true && ended["goaway_code"] as? String == "ENHANCE_YOUR_CALM", "\(ended)")
        #expect((ended["streams_reset"] as? Int ?? 0) < 20000, "\(ended)")

        // The stats name why each connection closed: the flood's GOAWAY, and the two clients'
        // own closes (with or without TLS close_notify).
        let closed = try await Wait.reading(seconds: 20, every: .milliseconds(100), {
            let stats = try await ProcessRunner.run("curl", ["-s", "http://127.0.0.1:\(ui)/api/stats"])
            return ((try? JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])?["connections_closed"] as? [String: Int]) ?? [:]
        }, until: { $0.values.reduce(0, +) == 3 })
        #expect(closed["goaway-sent:ENHANCE_YOUR_CALM"] == 1, "\(closed)")
        #expect((closed["peer-closed"] ?? 0) + (closed["peer-reset"] ?? 0) == 2, "\(closed)")
        #expect(await server.stop() == 143)
        #expect(server.stderr.contains("closed: goaway-sent:ENHANCE_YOUR_CALM after 0 requests"), "\(server.stderr)")
    }
}
