// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Issue 31's slow peers, on loopback: request bodies sent a byte at a time and abandoned long
/// polls against the inbox, and the inbox's own clients (`mock expect`, `mock faults`) and the
/// webhook against hostile HTTP peers (`scripts/hostile-http.py`, Python sockets). Times are
/// only generous upper bounds that prove a hang is gone (three times the documented time);
/// the assertions are on what happened: answers, counts, sentences.
@Suite("CLI: slow and hostile HTTP peers (issue 31)", .serialized)
struct SlowPeerCLITests {
    static let hostileScript = Binaries.packageRoot + "/scripts/hostile-http.py"

    /// A connection to 127.0.0.1:`port` that sent `request` (nil: not connected).
    private func connect(_ port: Int, sending request: String) -> Int32? {
        guard let fd = connectIdle(from: "127.0.0.1", to: port) else { return nil }
        let bytes = Array(request.utf8)
        guard send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Whether the server closes (or resets) `fd` by `deadline`: a read returns 0 or fails.
    private func closedByServer(_ fd: Int32, by deadline: Date) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var timeout = timeval(tv_sec: Int(left), tv_usec: Int((left - left.rounded(.down)) * 1_000_000))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let count = read(fd, &buffer, buffer.count)
            if count > 0 { continue }  // an answer (the long poll's): read on to the close
            if count < 0, errno == EAGAIN || errno == EINTR { continue }
            return count == 0 || errno == ECONNRESET
        }
    }

    /// Runs `arguments` until `done` says so, at most `seconds` (a bound, not a measure).
    private func runUntil(_ f: CLIFixture, _ arguments: [String], seconds: Double = 30,
                          _ done: (ProcessResult) -> Bool) async throws -> ProcessResult {
        try await Wait.reading(seconds: seconds, every: .milliseconds(200), { try await f.run(arguments) }, until: done)
    }

    /// Sockets of `port` (local side) in CLOSE-WAIT: the peer left and the server did not close.
    private func closeWaits(port: Int) -> Int { TCPTable.count(port: port, state: .closeWait) }

    /// `scripts/hostile-http.py` in `mode`; its port once it listens.
    private func hostile(_ f: CLIFixture, _ mode: String, _ extra: [String] = []) async throws -> (process: BackgroundProcess, port: Int) {
        let name = "hostile-\(UUID().uuidString).port"
        let process = try BackgroundProcess("/usr/bin/python3", [Self.hostileScript, "--port-file", name, "--mode", mode, "--log", "hostile.log"] + extra,
                                            directory: f.dir.path)
        try #require(await process.waitForFile(f.dir.file(name)), "\(process.stderr)")
        return (process, try #require(Int(String(decoding: try f.dir.read(name), as: UTF8.self))))
    }

    /// The hostile peer's log: (seconds the connection lasted, request bytes read) per connection closed.
    private func hostileLog(_ f: CLIFixture) -> [(seconds: Double, read: Int)] {
        guard let data = try? f.dir.read("hostile.log") else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ").compactMap { Double($0) }
            return parts.count == 3 ? (parts[1] - parts[0], Int(parts[2])) : nil
        }
    }

    @Test("48 PUT /api/faults bodies sent a byte at a time do not lock the inbox; each is closed by the 10 s request deadline")
    func slowBodiesDoNotLockTheInbox() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--ui-port", "0"])
        defer { server.kill() }
        let ui = try #require(ports["ui"] as? Int)
        let head = "PUT /api/faults HTTP/1.1\r\nHost: 127.0.0.1:\(ui)\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
        let slow = (0..<48).compactMap { _ in connect(ui, sending: head) }
        defer { slow.forEach { close($0) } }
        #expect(slow.count == 48)
        // A byte every 2 s on each, as the repro did (a byte every 3 s kept every one
        // alive past the old idle timeout, and the inbox refused all else for 45 s).
        let trickle = Task {
            while !Task.isCancelled {
                for fd in slow { _ = send(fd, "a", 1, Int32(MSG_NOSIGNAL)) }
                // Not a wait: the pace of the slow client is what the test is about.
                try? await Task.sleep(for: .seconds(2))
            }
        }
        defer { trickle.cancel() }
        // Now a slow connection yields its slot after a second of waiting: within 8 s, before
        // the 10 s request deadline could have closed them (a bound, not a measure).
        let shown = try await runUntil(f, ["mock", "faults", "show", "--ports-file", "ports.json"], seconds: 8) { $0.status == 0 }
        #expect(shown.status == 0 && shown.stdout.contains("Faults in force at"), "\(shown)")
        let expect = try await f.run(["mock", "expect", "--ports-file", "ports.json", "--timeout", "0"])
        #expect(expect.status == 1 && expect.stderr.contains("Expected 1 notification within 0 s"), "\(expect)")
        // Every slow connection is closed: evicted, or at the 10 s deadline (bound: 3 times that).
        let deadline = Date().addingTimeInterval(30)
        let closed = slow.filter { closedByServer($0, by: deadline) }.count
        #expect(closed == 48, "\(closed) of 48 slow connections closed by the inbox")
        #expect(await server.stop() == 143)
    }

    @Test("48 long polls from one address: a 49th connection is refused with a sentence that says so; once their clients leave, the polls end at once")
    func abandonedLongPollsEnd() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--ui-port", "0"])
        defer { server.kill() }
        let ui = try #require(ports["ui"] as? Int)
        let poll = "GET /api/notifications/wait?timeout=60 HTTP/1.1\r\nHost: 127.0.0.1:\(ui)\r\n\r\n"
        var polls = (0..<48).compactMap { _ in connect(ui, sending: poll) }
        defer { polls.forEach { close($0) } }
        #expect(polls.count == 48)
        // Requests being answered keep their slots: the 49th connection from 127.0.0.1 is
        // closed, and mock faults says that, not "did not answer within 10 seconds".
        let refused = try await runUntil(f, ["mock", "faults", "show", "--ports-file", "ports.json"], seconds: 20) { $0.status != 0 }
        expectFailure(refused, status: 4, mentions: ["closed it without answering", "48 from one address"])
        #expect(!refused.stderr.contains("did not answer within"), "\(refused)")
        // The clients go; their polls end now, not after the rest of the 60 s.
        polls.forEach { close($0) }
        polls = []
        #expect(await Wait.until(seconds: 20) { closeWaits(port: ui) == 0 }, "\(closeWaits(port: ui)) connections left in CLOSE-WAIT")
        let shown = try await runUntil(f, ["mock", "faults", "show", "--ports-file", "ports.json"], seconds: 20) { $0.status == 0 }
        #expect(shown.status == 0, "\(shown)")
        #expect(await server.stop() == 143)
    }

    @Test("mock expect refuses a 31 MiB answer of {} values within a small multiple of its 32 MiB read bound")
    func hugeAnswerMemoryIsBounded() async throws {
        let f = try await CLIFixture()
        let (peer, port) = try await hostile(f, "big-json")
        defer { peer.kill() }
        let result = try await ProcessRunner.run("/usr/bin/time", ["-v", Binaries.apnskit, "mock", "expect", "--ui", "http://127.0.0.1:\(port)", "--timeout", "1"],
                                                 directory: f.dir.path)
        #expect(result.status == 4, "\(result.stdout) \(result.stderr.suffix(2000))")
        #expect(result.stderr.contains("holds more JSON values than 200 inbox entries can"), "\(result.stderr.suffix(2000))")
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("Maximum resident set size") })
        let kilobytes = try #require(Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? ""))
        // The issue measured 2 GB; the bound is 5 times the 32 MiB read.
        #expect(kilobytes < 5 * 32 * 1024, "peak RSS \(kilobytes) KB")
    }

    @Test("mock expect --timeout 2 against an inbox that trickles its answer ends by its documented 12 s and says what came")
    func trickledAnswerEndsOnTime() async throws {
        let f = try await CLIFixture()
        let (peer, port) = try await hostile(f, "trickle", ["--interval", "0.5"])
        defer { peer.kill() }
        let started = Date()
        let result = try await f.run(["mock", "expect", "--ui", "http://127.0.0.1:\(port)", "--timeout", "2"])
        let took = Date().timeIntervalSince(started)
        expectFailure(result, status: 4, mentions: ["took the request and sent", "bytes but no complete answer within 12 s"])
        #expect(took < 36, "mock expect --timeout 2 took \(took) s; documented: 12 s at most")
    }

    /// `mock serve --webhook` to the hostile peer; `push` one notification through it.
    private func webhookMock(_ f: CLIFixture, port: Int, retries: Int) async throws -> (server: BackgroundProcess, ui: Int) {
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--ui-port", "0", "--webhook", "http://127.0.0.1:\(port)/hook", "--webhook-retries", String(retries)])
        let provider = try #require(ports["provider"] as? Int), ui = try #require(ports["ui"] as? Int)
        let sent = try await f.run(["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--token", String(repeating: "ab", count: 32),
                                    "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem", "--topic", "com.example.app", "--alert", "Hello"])
        #expect(sent.status == 0, "\(sent)")
        return (server, ui)
    }

    private func webhookStats(_ ui: Int, seconds: Double = 60, until done: @escaping @Sendable ([String: Any]) -> Bool) async throws -> [String: Any] {
        try await Wait.reading(seconds: seconds, every: .milliseconds(100), {
            let answer = try await ProcessRunner.run("/usr/bin/curl", ["--silent", "--max-time", "10", "http://127.0.0.1:\(ui)/api/stats"])
            return ((try? JSONSerialization.jsonObject(with: answer.stdoutData)) as? [String: Any])?["webhook"] as? [String: Any] ?? [:]
        }, until: done)
    }

    @Test("A receiver that answers 200 after 10.5 s gets the entry once, counted maybe delivered, not dropped and posted again")
    func lateAnswerIsMaybeDelivered() async throws {
        let f = try await CLIFixture()
        let (peer, port) = try await hostile(f, "late", ["--delay", "10.5"])
        defer { peer.kill() }
        let (server, ui) = try await webhookMock(f, port: port, retries: 2)
        defer { server.kill() }
        let stats = try await webhookStats(ui) { ($0["maybe_delivered"] as? Int ?? 0) + ($0["dropped"] as? Int ?? 0) + ($0["delivered"] as? Int ?? 0) >= 1 }
        #expect(stats["maybe_delivered"] as? Int == 1 && stats["dropped"] as? Int == 0 && stats["retried"] as? Int == 0, "\(stats)")
        // The receiver read the whole POST once (the issue: three times, while counted dropped).
        #expect(await Wait.until(seconds: 30) { !hostileLog(f).isEmpty })
        // Not a wait: a window in which a second POST of the settled entry (the bug)
        // would show in the log. Nothing can be awaited for a POST that must never come.
        try await Task.sleep(for: .seconds(1))
        let log = hostileLog(f)
        #expect(log.count == 1 && log.allSatisfy { $0.read > 100 }, "\(log)")
        #expect(await server.stop() == 143)
        #expect(server.stderr.contains("webhook: 0 delivered, 1 maybe delivered (posted whole, no answer), 0 dropped"), "\(server.stderr)")
    }

    /// CPU seconds `pid` has used (user and system), from /proc.
    private func cpuSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // Fields 14 and 15 (utime, stime) are the 12th and 13th after the command name.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test("A receiver that sends a 60 KB head then trickles its body: one POST ends within its 10 s, cheaply; counted maybe delivered")
    func trickledReceiverIsBoundedAndCheap() async throws {
        let f = try await CLIFixture()
        let (peer, port) = try await hostile(f, "trickle", ["--head-bytes", "61440", "--interval", "0.01"])
        defer { peer.kill() }
        let (server, ui) = try await webhookMock(f, port: port, retries: 0)
        defer { server.kill() }
        let before = cpuSeconds(server.pid)
        let stats = try await webhookStats(ui) { ($0["maybe_delivered"] as? Int ?? 0) >= 1 }
        let cpu = cpuSeconds(server.pid) - before
        #expect(stats["maybe_delivered"] as? Int == 1 && stats["dropped"] as? Int == 0, "\(stats)")
        #expect(await Wait.until(seconds: 30) { !hostileLog(f).isEmpty })
        let log = hostileLog(f)
        // Documented: 10 s per POST; the bound is 1.5 times that (the issue measured 19.2 s).
        #expect(log.count == 1 && log.allSatisfy { $0.seconds < 15 }, "\(log)")
        // The issue measured 5.3 s of CPU per 10 s attempt.
        #expect(cpu < 2, "the mock used \(cpu) s of CPU on one trickled answer")
        #expect(await server.stop() == 143)
    }

    @Test(arguments: ["silent", "trickle"])
    func sigtermEndsTheFlushOnTime(mode: String) async throws {
        let f = try await CLIFixture()
        let (peer, port) = try await hostile(f, mode, ["--interval", "0.5"])
        defer { peer.kill() }
        let (server, ui) = try await webhookMock(f, port: port, retries: 5)
        defer { server.kill() }
        // The entry is being posted (taken from the queue, not settled).
        _ = try await webhookStats(ui) { $0["queued"] as? Int == 1 }
        // ... and its connection to the receiver is open: the flush has a POST in flight.
        #expect(await Wait.until(seconds: 30) { TCPTable.count(port: port, state: .established) >= 1 }, "the webhook never connected to the receiver")
        let started = Date()
        kill(server.pid, SIGTERM)
        let ended = await Wait.until(seconds: 60) { !server.isRunning }
        let took = Date().timeIntervalSince(started)
        #expect(ended && took < 15, "SIGTERM took \(took) s to end the mock; documented: the 5 s flush")
        #expect(await server.stop(signal: SIGKILL) == 143, "\(server.stderr)")
        #expect(server.stderr.contains("webhook: 0 delivered, 1 maybe delivered (posted whole, no answer), 0 dropped"), "\(server.stderr)")
    }
}
