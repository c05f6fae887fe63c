import APNsCredentials
import APNsMock
import APNsProtocol
import APNsSender
import APNsTransport
import Foundation
import Testing
import TestSupport

/// The sender against the mock gateway over real HTTP/2 and TLS, with the mock injecting the
/// failures real gateways produce. The mock's record is the ground truth: nothing lost, and
/// nothing delivered twice unless the sender's result says it may have been.
@Suite("Reliability: the sender against the mock with faults", .serialized)
struct ReliabilityTests {
    final class Feed: NotificationFeed, @unchecked Sendable {
        private let lock = NSLock()
        private let count: Int
        private var position = 0
        init(count: Int) { self.count = count }
        func next() -> (index: Int, notification: PushNotification)? {
            lock.withLock {
                guard position < count else { return nil }
                defer { position += 1 }
                let token = try! DeviceToken(parsing: String(format: "%064x", position + 1))
                return (position, PushNotification(token: token, payload: Array(#"{"aps":{"alert":"r"}}"#.utf8), topic: "com.example.app"))
            }
        }
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var all: [NotificationResult] = []
        func add(_ result: NotificationResult) { lock.withLock { all.append(result) } }
    }

    func run(count: Int, faults: GatewayFaults, connections: Int) async throws -> (GatewayFixture, BatchSummary, [NotificationResult]) {
        let f = try GatewayFixture(faults: faults)
        let identity = try f.identity(.development)
        let client = APNsClient(endpoint: f.endpoint, caFile: f.caBundle, authentication: .certificate(identity),
                                connections: connections, concurrency: 100,
                                policy: RetryPolicy(maximumAttempts: 8, baseDelay: 0.005, maximumDelay: 0.2, maximumReconnects: 6))
        let results = Results()
        let summary = await client.send(feed: Feed(count: count)) { results.add($0) }
        await client.close()
        return (f, summary, results.all)
    }

    /// Every notification has exactly one result, all delivered; the record holds each exactly
    /// once, or more than once only where the result says possibly duplicated.
    func expectNoneLost(_ f: GatewayFixture, _ summary: BatchSummary, _ results: [NotificationResult], count: Int) throws {
        #expect(summary.total == count)
        #expect(summary.delivered == count, "\(summary)")
        #expect(results.count == count)
        #expect(Set(results.map(\.index)).count == count, "exactly one result per notification")
        var recorded: [String: Int] = [:]
        for line in try f.records() { if let id = line["apns_id"] as? String { recorded[id, default: 0] += 1 } }
        for result in results {
            let times = recorded[result.apnsID] ?? 0
            #expect(times >= 1, "\(result.apnsID) was never accepted by the gateway")
            if times > 1 { #expect(result.possiblyDuplicated, "\(result.apnsID) delivered \(times) times without being flagged") }
        }
    }

    @Test("100,000 notifications through 429/500/503 answers, GOAWAY every 20,000 requests and a 50-stream limit")
    func ratesGoAwayAndStreamLimit() async throws {
        var faults = GatewayFaults()
        faults.failureRates = [429: 0.01, 500: 0.005, 503: 0.01]
        faults.goAwayAfter = 20_000
        faults.maxConcurrentStreams = 50
        let (f, summary, results) = try await run(count: 100_000, faults: faults, connections: 2)
        try expectNoneLost(f, summary, results, count: 100_000)
        #expect(summary.retries > 0)
        #expect(summary.reconnects > 0, "GOAWAY made the sender reconnect")
    }

    @Test("20,000 notifications while the gateway drops each connection after accepting its 3,000th request")
    func droppedConnections() async throws {
        var faults = GatewayFaults()
        faults.dropAfter = 3_000
        faults.dropMode = .accepted
        let (f, summary, results) = try await run(count: 20_000, faults: faults, connections: 1)
        try expectNoneLost(f, summary, results, count: 20_000)
        #expect(summary.possiblyDuplicated > 0, "a request accepted but unanswered was resent and counted")
    }
}
