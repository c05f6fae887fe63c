// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 32: the README's long-running example (Examples/PushWorker) keeps its memory flat
/// however many notifications pass through it.
@Suite("Examples/PushWorker runs for months", .serialized)
struct PushWorkerTests {
    static var worker: String {
        URL(fileURLWithPath: Binaries.apnskit).deletingLastPathComponent().appendingPathComponent("PushWorker").path
    }

    static func token(_ number: Int) -> String { String(format: "%064x", number) }

    /// The resident set of `pid` in KiB (`VmRSS` in /proc), nil once it is gone.
    static func residentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first
    }

    /// A mock gateway (the library's: it counts what it accepted without keeping it) and what the
    /// worker needs to reach it: its identity and CA files, as the worker's environment.
    struct Fixture {
        let gateway: APNsMockGateway
        let dir: TemporaryDirectory
        let environment: [String: String]

        init(_ name: String) async throws {
            gateway = try await APNsMockGateway.start(sentNotificationsLimit: 1)
            dir = try TemporaryDirectory(name)
            let pem = try dir.write("apns.pem", try gateway.certificateIdentity().combinedPEM())
            let caFile = try dir.write("ca.pem", text: gateway.caCertificatesPEM)
            environment = ["APNS_IDENTITY": pem, "APNS_GATEWAY": "\(gateway.host):\(gateway.port)", "APNS_CA_FILE": caFile]
        }
    }

    /// The worker's peak resident set (KiB, GNU time's `%M`) sending `count` tokens handed to it
    /// all at once (a file on stdin, read as fast as the worker reads it), after it delivered them all.
    static func peakKiB(sending count: Int, through fixture: Fixture) async throws -> Int {
        let input = Data(((1...count).map { token($0) }.joined(separator: "\n") + "\n").utf8)
        let peakFile = fixture.dir.file("peak-\(count).txt")
        let gateway = fixture.gateway
        let before = gateway.sentNotificationCount
        let result = try await ProcessRunner.run("/usr/bin/time", ["-f", "%M", "-o", peakFile, worker], stdin: input,
                                                 environment: fixture.environment, deadline: .seconds(300))
        #expect(result.status == 0, "\(result.stderr.suffix(2_000))")
        #expect(gateway.sentNotificationCount - before == count, "the gateway got \(gateway.sentNotificationCount - before) of \(count)")
        let text = try String(contentsOfFile: peakFile, encoding: .utf8)
        return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), "GNU time wrote '\(text)'")
    }

    @Test("A fast input is not a task per line: 30,000 tokens at once peak within 32 MiB of 1,000 at once",
          .timeLimit(.minutes(10)))
    func fastInputIsBounded() async throws {
        let fixture = try await Fixture("apnskit-worker-fast")
        let small = try await Self.peakKiB(sending: 1_000, through: fixture)
        let large = try await Self.peakKiB(sending: 30_000, through: fixture)
        // Without the worker's bound every line became a waiting task at once: measured with the
        // bound removed, 207 MB against 39 MB (debug build); with it at most 1,000 sends are in
        // flight (45 MB against 39 MB).
        #expect(large - small < 32 * 1024, "peak RSS \(small) KiB for 1,000 tokens, \(large) KiB for 30,000")
        print("PushWorker peak RSS: \(small) KiB for 1,000 tokens at once, \(large) KiB for 30,000")
    }

    @Test("Memory stays flat: 60,000 notifications through the worker, RSS measured after 10,000 and after 60,000",
          .timeLimit(.minutes(5)))
    func memoryStaysFlat() async throws {
        // The worker's own output is buffered until it exits; the gateway's count is what is read.
        let fixture = try await Fixture("apnskit-worker")
        let gateway = fixture.gateway
        let dir = fixture.dir
        // stdin is a FIFO the test writes a chunk at a time, each once the last one's results are
        // out: a worker fed as fast as it sends, as in production (everything at once is
        // `fastInputIsBounded`).
        let fifo = dir.file("tokens.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let child = try BackgroundProcess("/bin/sh", ["-c", "exec \"$0\" < \"$1\"", Self.worker, fifo], environment: fixture.environment)
        defer { child.kill() }
        // O_RDWR: opening does not wait for the reader; the worker sees its end when this closes.
        let input = open(fifo, O_RDWR)
        #expect(input >= 0)
        let chunk = 1_000
        var sent = 0
        var baseline: Int?
        for round in 0..<60 {
            let text = (0..<chunk).map { Self.token(sent + $0 + 1) }.joined(separator: "\n") + "\n"
            let bytes = Array(text.utf8)
            #expect(bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) } == bytes.count)
            sent += chunk
            let target = sent
            let caughtUp = await Wait.until(seconds: 60, while: { child.isRunning }) { gateway.sentNotificationCount >= target }
            try #require(caughtUp, "the gateway got \(gateway.sentNotificationCount) of \(sent): \(child.stderr.suffix(2_000))")
            if round == 9 { baseline = Self.residentKiB(child.pid) }
        }
        let last = try #require(Self.residentKiB(child.pid))
        let first = try #require(baseline)
        close(input)
        let end = await child.exited()
        #expect(end.status == 0 && !end.signaled, "\(end) \(child.stderr.suffix(2_000))")
        #expect(child.stdout.contains("apns_notifications_total{outcome=delivered,reason=none,push_type=alert,environment=sandbox} 60000"),
                "\(child.stdout.suffix(2_000))")
        // A task group that never reads its finished children grew 4.3 KB a notification: 215 MB
        // over these 50,000. A generous bound, far under that and far over allocator noise.
        #expect(last - first < 64 * 1024, "RSS went from \(first) KiB to \(last) KiB over 50,000 notifications")
        print("PushWorker RSS: \(first) KiB after 10,000 notifications, \(last) KiB after 60,000")
    }
}
