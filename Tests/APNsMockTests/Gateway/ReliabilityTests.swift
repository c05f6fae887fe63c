// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
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
@Suite("Reliability: the sender against the mock with faults")
struct ReliabilityTests {
    final class Feed: APNsNotificationFeed, @unchecked Sendable {
        private let lock = NSLock()
        private let count: Int
        private var position = 0
        init(count: Int) { self.count = count }
        func next() -> (index: Int, notification: APNsNotification)? {
            lock.withLock {
                guard position < count else { return nil }
                defer { position += 1 }
                let token = try! APNsDeviceToken(parsing: String(format: "%064x", position + 1))
                return (position, APNsNotification(token: token, payload: Array(#"{"aps":{"alert":"r"}}"#.utf8), topic: "com.example.app"))
            }
        }
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var all: [APNsSendResult] = []
        func add(_ result: APNsSendResult) { lock.withLock { all.append(result) } }
    }

    func run(count: Int, faults: GatewayFaults, connections: Int) async throws -> (GatewayFixture, APNsBatchSummary, [APNsSendResult]) {
        let f = try GatewayFixture(faults: faults)
        let identity = try f.identity(.development)
        let client = APNsClient(endpoint: f.endpoint, trust: .caFile(f.caBundle), authentication: .certificate(identity),
                                connections: connections, concurrency: 100,
                                policy: APNsRetryPolicy(maximumAttempts: 8, baseDelay: .milliseconds(5), maximumDelay: .milliseconds(200), maximumReconnects: 6))
        let results = Results()
        let summary = await client.send(feed: Feed(count: count)) { results.add($0) }
        await client.close()
        return (f, summary, results.all)
    }

    /// Every notification has exactly one result, all delivered; the record holds each exactly
    /// once, or more than once only where the result says possibly duplicated.
    func expectNoneLost(_ f: GatewayFixture, _ summary: APNsBatchSummary, _ results: [APNsSendResult], count: Int) throws {
        #expect(summary.total == count)
        #expect(summary.delivered == count, "\(summary)")
        #expect(results.count == count)
        #expect(Set(results.map(\.index)).count == count, "exactly one result per notification")
        var recorded: [String: Int] = [:]
        for line in try f.records() { if let id = line["apns_id"] as? String { recorded[id, default: 0] += 1 } }
        for result in results {
            let times = recorded[result.apnsIDText] ?? 0
            #expect(times >= 1, "\(result.apnsIDText) was never accepted by the gateway")
            if times > 1 { #expect(result.possiblyDuplicated, "\(result.apnsIDText) delivered \(times) times without being flagged") }
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

    @Test("Legacy: a bad token in the middle of 10,000 frames through LegacySender is reported, and every later one arrives")
    func legacyBadTokenMidStream() async throws {
        let count = 10_000
        let bad = 4_321
        var devices: [APNsDeviceToken: DeviceRegistry.Device] = [:]
        for index in 0..<count where index != bad {
            devices[try APNsDeviceToken(parsing: String(format: "%064x", index + 1))] = .init(topic: "com.example.app", environment: .sandbox)
        }
        let f = try GatewayFixture(registry: DeviceRegistry(devices: devices))
        let sender = LegacySender(endpoint: Endpoint(host: "localhost", port: try #require(f.gateway.legacyPort)),
                                  identity: try f.identity(.development), trust: .caFile(f.caBundle))
        let results = Results()
        let summary = await sender.send(Feed(count: count)) { results.add($0) }

        #expect(summary.total == count && summary.delivered == count - 1 && summary.rejected == 1, "\(summary)")
        #expect(Set(results.all.map(\.index)).count == count, "exactly one result per notification")
        let rejected = try #require(results.all.first { !$0.isDelivered })
        #expect(rejected.index == bad)
        guard case .rejected(let status, _, _) = rejected.outcome else { Issue.record("\(rejected.outcome)"); return }
        #expect(status == Int(LegacyStatus.invalidToken.rawValue))
        // The gateway's record: every good token exactly once (those after the bad one came on a
        // new connection), the bad one never. The legacy protocol acknowledges nothing (the sender
        // trusts a quiet second), so on a loaded machine the gateway may still be reading the last
        // frames when send returns: the record is read once it has the last token (bounded wait).
        let last = String(format: "%064x", count)
        _ = await Wait.until(seconds: 60) { ((try? f.records()) ?? []).contains { $0["token"] as? String == last } }
        var recorded: [String: Int] = [:]
        for line in try f.records() { if let token = line["token"] as? String { recorded[token, default: 0] += 1 } }
        #expect(recorded.count == count - 1)
        #expect(recorded.values.allSatisfy { $0 == 1 })
        #expect(recorded[String(format: "%064x", bad + 1)] == nil)
        #expect(recorded[last] == 1, "the last frame arrived")
    }
}
