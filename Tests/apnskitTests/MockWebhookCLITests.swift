// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `mock serve --webhook`: every answered request's inbox entry POSTed to a receiver we did not
/// write (`scripts/webhook-receiver.py`, Python's http.server), with retries, a bounded queue,
/// drops counted and shown, and a bounded flush at SIGTERM.
@Suite("CLI: mock serve --webhook")
struct MockWebhookCLITests {
    static let receiverScript = Binaries.packageRoot + "/scripts/webhook-receiver.py"

    /// The receiver on a free port; its port once it listens.
    private func receiver(_ f: CLIFixture, _ extra: [String] = []) async throws -> (process: BackgroundProcess, port: Int) {
        let process = try BackgroundProcess("/usr/bin/python3", [Self.receiverScript, "--port-file", "receiver.port", "--out", "received.jsonl",
                                                                 "--failed-out", "failed.jsonl"] + extra, directory: f.dir.path)
        try #require(await process.waitForFile(f.dir.file("receiver.port")), "\(process.stderr)")
        return (process, try #require(Int(String(decoding: try f.dir.read("receiver.port"), as: UTF8.self))))
    }

    /// `count` notifications from one `apnskit push` run (one connection); tokens 1, 2, ...
    /// with the all-zero token (answered 400 BadDeviceToken) among them when `rejected`.
    private func push(_ f: CLIFixture, _ provider: Int, count: Int, rejected: Bool = false) async throws -> ProcessResult {
        var tokens = (1...count).map { String(format: "%064x", $0) }
        if rejected { tokens[count / 2] = String(repeating: "0", count: 64) }
        _ = try f.dir.write("tokens.txt", text: tokens.joined(separator: "\n") + "\n")
        return try await f.run(["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--tokens", "tokens.txt",
                                "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem", "--topic", "com.example.app", "--alert", "Hello"])
    }

    /// `GET /api/stats`' webhook object, read by curl.
    private func stats(_ ui: Int) async throws -> [String: Any] {
        let answer = try await ProcessRunner.run("/usr/bin/curl", ["--silent", "--max-time", "10", "http://127.0.0.1:\(ui)/api/stats"])
        let object = try JSONSerialization.jsonObject(with: answer.stdoutData) as? [String: Any]
        return object?["webhook"] as? [String: Any] ?? [:]
    }

    /// Polls the stats until `done` says so (at most 60 s: a generous bound, not a timing).
    private func waitForStats(_ ui: Int, _ done: ([String: Any]) -> Bool) async throws -> [String: Any] {
        try await Wait.reading(seconds: 60, every: .milliseconds(100), { try await stats(ui) }, until: done)
    }

    /// The entries' ids in the order the receiver wrote them.
    private func receivedIDs(_ f: CLIFixture, _ file: String = "received.jsonl") throws -> [Int] {
        guard FileManager.default.fileExists(atPath: f.dir.file(file)) else { return [] }
        return String(decoding: try f.dir.read(file), as: UTF8.self).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? Int
        }
    }

    @Test("Every answered request arrives once and in order, as the inbox shows it; the first 3 POSTs get 500 and are retried")
    func everyEntryOnceInOrder() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (receiver, port) = try await receiver(f, ["--fail-first", "3"])
        defer { receiver.kill() }
        let (server, ports) = try await f.startMock(["--ui-port", "0", "--webhook", "http://127.0.0.1:\(port)/hook?from=mock"])
        defer { server.kill() }
        let provider = try #require(ports["provider"] as? Int), ui = try #require(ports["ui"] as? Int)
        let sent = try await push(f, provider, count: 30, rejected: true)
        #expect(sent.status == 1, "one token is rejected: \(sent)")
        let stats = try await waitForStats(ui) { ($0["delivered"] as? Int ?? 0) >= 30 }
        #expect(stats["delivered"] as? Int == 30 && stats["retried"] as? Int == 3 && stats["dropped"] as? Int == 0 && stats["queued"] as? Int == 0, "\(stats)")
        let received = try receivedIDs(f), failed = try receivedIDs(f, "failed.jsonl")
        #expect(received == Array(1...30), "\(received)")
        #expect(failed == [1, 1, 1], "the first entry was answered 500 three times, then taken: \(failed)")
        // The same JSON as the inbox API's entry, the rejected one included.
        let lines = String(decoding: try f.dir.read("received.jsonl"), as: UTF8.self).split(separator: "\n")
        let rejected = try #require(lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["status"] as? Int == 400 })
        #expect(rejected["reason"] as? String == "BadDeviceToken" && rejected["token"] as? String == String(repeating: "0", count: 64), "\(rejected)")
        let list = try await ProcessRunner.run("/usr/bin/curl", ["--silent", "http://127.0.0.1:\(ui)/api/notifications?limit=1"])
        let newest = try #require((try JSONSerialization.jsonObject(with: list.stdoutData) as? [String: Any])?["notifications"] as? [[String: Any]])
        let posted = try #require(try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        let canonical = { (object: [String: Any]) in String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data(), as: UTF8.self) }
        #expect(canonical(posted) == canonical(newest[0]), "\(canonical(posted)) vs \(canonical(newest[0]))")
        #expect(await server.stop() == 143)
        #expect(server.stderr.contains("webhook: 30 delivered, 0 maybe delivered (posted whole, no answer), 0 dropped (queue full: 0, failed: 0, still queued at stop: 0), 3 retries."), "\(server.stderr)")
    }

    @Test("Receiver down, --webhook-queue 2 --webhook-retries 1: every entry is dropped and counted, in the stats, the log and the summary")
    func receiverDown() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let closed = ReservedPort()
        defer { withExtendedLifetime(closed) {} }
        let (server, ports) = try await f.startMock(["--ui-port", "0", "--webhook", "http://127.0.0.1:\(closed.port)/",
                                                     "--webhook-queue", "2", "--webhook-retries", "1"])
        defer { server.kill() }
        let provider = try #require(ports["provider"] as? Int), ui = try #require(ports["ui"] as? Int)
        #expect(try await push(f, provider, count: 10).status == 0)
        let stats = try await waitForStats(ui) { $0["dropped"] as? Int == 10 }
        #expect(stats["dropped"] as? Int == 10 && stats["delivered"] as? Int == 0 && stats["queued"] as? Int == 0, "\(stats)")
        #expect((stats["dropped_queue_full"] as? Int ?? 0) + (stats["dropped_failed"] as? Int ?? 0) == 10, "\(stats)")
        #expect(stats["queue_limit"] as? Int == 2 && stats["retries"] as? Int == 1, "\(stats)")
        // Logged at most once a second, with the last failure once there was one.
        #expect(await server.waitForStderr("entries dropped so far"), "\(server.stderr)")
        #expect(await server.waitForStderr("10 entries dropped so far"), "\(server.stderr)")
        #expect(server.stderr.contains("; last: cannot connect (Connection refused)."), "\(server.stderr)")
        #expect(await server.stop() == 143)
        #expect(server.stderr.contains("webhook: 0 delivered, 0 maybe delivered (posted whole, no answer), 10 dropped (queue full: \(stats["dropped_queue_full"] as? Int ?? -1), failed: \(stats["dropped_failed"] as? Int ?? -1), still queued at stop: 0)"),
                "\(server.stderr)")
    }

    /// A receiver that holds every POST while `stall` exists (it does at first), and a mock
    /// posting to it with a queue of 3.
    private func stalledReceiverAndMock(_ f: CLIFixture) async throws -> (receiver: BackgroundProcess, server: BackgroundProcess, provider: Int, ui: Int) {
        try await f.prepareMock()
        _ = try f.dir.write("stall", text: "1")
        let (receiver, port) = try await receiver(f, ["--stall-file", "stall"])
        let (server, ports) = try await f.startMock(["--ui-port", "0", "--webhook", "http://127.0.0.1:\(port)/", "--webhook-queue", "3"])
        return (receiver, server, try #require(ports["provider"] as? Int), try #require(ports["ui"] as? Int))
    }

    @Test("A receiver that stalls: the gateway answers every push meanwhile, the queue holds 3, the rest is dropped; SIGTERM counts what still waits")
    func stalledReceiver() async throws {
        let f = try await CLIFixture()
        let (receiver, server, provider, ui) = try await stalledReceiverAndMock(f)
        defer { receiver.kill(); server.kill() }
        let sent = try await push(f, provider, count: 10)
        #expect(sent.status == 0 && sent.stdout.contains("10 delivered"), "\(sent)")
        let expect = try await f.run(["mock", "expect", "--ports-file", "ports.json", "--count", "10", "--timeout", "0"])
        #expect(expect.status == 0, "\(expect)")
        // The first entry is being posted (held by the receiver), two wait, seven were dropped.
        let stats = try await waitForStats(ui) { $0["dropped_queue_full"] as? Int == 7 }
        #expect(stats["dropped_queue_full"] as? Int == 7 && stats["queued"] as? Int == 3 && stats["delivered"] as? Int == 0, "\(stats)")
        // SIGTERM: the flush waits at most 5 s for the stalled receiver; the entry it holds was
        // posted whole (maybe delivered), the 2 behind it are dropped.
        #expect(await server.stop() == 143)
        #expect(server.stderr.contains("webhook: 0 delivered, 1 maybe delivered (posted whole, no answer), 9 dropped (queue full: 7, failed: 0, still queued at stop: 2)"), "\(server.stderr)")
    }

    @Test("A stalled receiver that recovers gets what the queue held, in order")
    func stallThenRecover() async throws {
        let f = try await CLIFixture()
        let (receiver, server, provider, ui) = try await stalledReceiverAndMock(f)
        defer { receiver.kill(); server.kill() }
        #expect(try await push(f, provider, count: 5).status == 0)
        _ = try await waitForStats(ui) { $0["dropped_queue_full"] as? Int == 2 }
        try FileManager.default.removeItem(atPath: f.dir.file("stall"))
        let stats = try await waitForStats(ui) { ($0["delivered"] as? Int ?? 0) + ($0["maybe_delivered"] as? Int ?? 0) == 3 }
        #expect((stats["delivered"] as? Int ?? 0) + (stats["maybe_delivered"] as? Int ?? 0) == 3 && stats["dropped"] as? Int == 2, "\(stats)")
        // Entry 1 is posted once (at most once: a POST written whole is never sent again); if
        // the receiver held it past 10 s it counts maybe delivered. Each arrived, in order.
        let received = try receivedIDs(f)
        #expect(received == [1, 2, 3], "\(received)")
    }

    @Test("https: a receiver with the mock CA's server certificate gets every entry with --webhook-ca-file; without it the certificate is refused and the entry dropped, not retried")
    func https() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (receiver, port) = try await receiver(f, ["--cert", "mockca/server.pem", "--key", "mockca/server-key.pem"])
        defer { receiver.kill() }
        let (server, ports) = try await f.startMock(["--ui-port", "0", "--webhook", "https://127.0.0.1:\(port)/tls",
                                                     "--webhook-ca-file", "mockca/ca-bundle.pem"])
        defer { server.kill() }
        let provider = try #require(ports["provider"] as? Int), ui = try #require(ports["ui"] as? Int)
        _ = try await push(f, provider, count: 5)
        let stats = try await waitForStats(ui) { $0["delivered"] as? Int == 5 }
        #expect(stats["delivered"] as? Int == 5 && stats["dropped"] as? Int == 0, "\(stats)")
        #expect(try receivedIDs(f) == [1, 2, 3, 4, 5])
        #expect(await server.stop() == 143)

        // The system's trust store does not know the mock CA: refused once, dropped, logged.
        try FileManager.default.removeItem(atPath: f.dir.file("ports.json"))
        let (untrusting, again) = try await f.startMock(["--ui-port", "0", "--webhook", "https://127.0.0.1:\(port)/tls"])
        defer { untrusting.kill() }
        _ = try await push(f, try #require(again["provider"] as? Int), count: 1)
        let refused = try await waitForStats(try #require(again["ui"] as? Int)) { $0["dropped"] as? Int == 1 }
        #expect(refused["dropped_failed"] as? Int == 1 && refused["retried"] as? Int == 0, "\(refused)")
        #expect(await untrusting.waitForStderr("1 entry dropped so far (queue full: 0, failed: 1); last: the certificate of 127.0.0.1 did not verify"),
                "\(untrusting.stderr)")
        #expect(untrusting.stderr.contains("(the receiver's CA goes in --webhook-ca-file)."), "\(untrusting.stderr)")
        #expect(try receivedIDs(f) == [1, 2, 3, 4, 5], "nothing more arrived")
        expectFailure(try await f.run(["mock", "serve", "--ca", "mockca", "--port", "0", "--webhook", "https://127.0.0.1:\(port)/",
                                       "--webhook-ca-file", "missing.pem"]), status: 3, mentions: ["Cannot read --webhook-ca-file missing.pem"])
    }

    @Test("Bad webhook flags exit 2 with a sentence")
    func badFlags() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        for (arguments, message) in [(["--webhook", "ftp://127.0.0.1:9/"], "--webhook 'ftp://127.0.0.1:9/' is not an http:// or https:// URL"),
                                     (["--webhook", "127.0.0.1:9"], "is not an http:// or https:// URL with a host"),
                                     (["--webhook", "http://127.0.0.1:9/", "--webhook-ca-file", "mockca/ca-bundle.pem"], "--webhook-ca-file needs an https:// --webhook URL."),
                                     (["--webhook", "http://127.0.0.1:9/", "--webhook-queue", "0"], "--webhook-queue must be at least 1."),
                                     (["--webhook", "http://127.0.0.1:9/", "--webhook-retries", "101"], "--webhook-retries must be from 0 to 100."),
                                     (["--webhook-queue", "5"], "--webhook-queue and --webhook-retries need --webhook URL.")] {
            expectFailure(try await f.run(["mock", "serve", "--ca", "mockca", "--port", "0"] + arguments), status: 2, mentions: [message])
        }
    }
}
