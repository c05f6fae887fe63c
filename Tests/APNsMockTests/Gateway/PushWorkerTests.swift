import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 32: the README's long-running example (Examples/PushWorker) keeps its promises over a
/// long run: memory flat however many notifications pass, and an exit right after `close()`
/// that never crashes, even with the gateway down.
@Suite("Examples/PushWorker runs for months", .serialized)
struct PushWorkerTests {
    static var worker: String {
        URL(fileURLWithPath: Binaries.apnskit).deletingLastPathComponent().appendingPathComponent("PushWorker").path
    }

    static func token(_ number: Int) -> String { String(format: "%064x", number) }

    /// Lines the worker printed so far: one per result.
    static func lines(_ child: BackgroundProcess) -> Int { child.stdoutData.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 } }

    /// The resident set of `pid` in KiB (`VmRSS` in /proc), nil once it is gone.
    static func residentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first
    }

    @Test("Memory stays flat: 60,000 notifications through the worker, RSS measured after 10,000 and after 60,000",
          .timeLimit(.minutes(5)))
    func memoryStaysFlat() async throws {
        let f = try GatewayFixture()
        let pem = try f.dir.write("apns.pem", try f.identity(.development).combinedPEM())
        // stdin is a FIFO the test writes a chunk at a time, each once the last one's results are
        // out: a worker fed as fast as it sends, as in production (not everything at once,
        // which would hold every notification's task alive whatever the group).
        let fifo = f.dir.file("tokens.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let child = try BackgroundProcess("/bin/sh", ["-c", "exec \"$0\" < \"$1\"", Self.worker, fifo], environment: [
            "APNS_IDENTITY": pem, "APNS_GATEWAY": "127.0.0.1:\(f.gateway.providerPort)", "APNS_CA_FILE": f.caBundle,
        ])
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
            let caughtUp = await Wait.until(seconds: 60, while: { child.isRunning }) { Self.lines(child) >= target }
            try #require(caughtUp, "results stopped at \(Self.lines(child)) of \(sent): \(child.stderr.suffix(2_000))")
            if round == 9 { baseline = Self.residentKiB(child.pid) }
        }
        let last = try #require(Self.residentKiB(child.pid))
        let first = try #require(baseline)
        close(input)
        let end = await child.exited()
        #expect(end.status == 0 && !end.signaled, "\(end) \(child.stderr.suffix(2_000))")
        #expect(child.stdout.contains("apns_notifications_total{outcome=delivered,reason=none,push_type=alert,environment=sandbox} 60000"),
                "\(child.stdout.suffix(2_000))")
        // A task group that keeps its finished children grew 4.3 KB a notification: 215 MB over
        // these 50,000. A generous bound, far under that and far over allocator noise.
        #expect(last - first < 64 * 1024, "RSS went from \(first) KiB to \(last) KiB over 50,000 notifications")
    }

    @Test("Exit right after close() with the gateway down: 30 runs, no crash", .timeLimit(.minutes(5)))
    func exitAfterCloseWithTheGatewayDown() async throws {
        let f = try GatewayFixture()
        let pem = try f.dir.write("apns.pem", try f.identity(.development).combinedPEM())
        // A port bound and never listened on: every connect is refused at once, and the port
        // stays ours for the whole test (no other process can take it).
        let (closedPort, port) = bindLoopbackTCP()
        defer { close(closedPort) }
        let tokens = (1...4).map(Self.token).joined(separator: "\n") + "\n"
        var crashes: [String] = []
        for run in 1...30 {
            let child = try BackgroundProcess(Self.worker, [], stdin: Data(tokens.utf8), environment: [
                "APNS_IDENTITY": pem, "APNS_GATEWAY": "127.0.0.1:\(port)", "APNS_CA_FILE": f.caBundle,
            ])
            let end = await child.exited()
            if end.status != 0 || end.signaled { crashes.append("run \(run): \(end) \(child.stderr.suffix(500))") }
            #expect(child.stdout.components(separatedBy: "failed ").count - 1 == 4, "run \(run): \(child.stdout)")
        }
        #expect(crashes.isEmpty, "\(crashes)")
    }
}
