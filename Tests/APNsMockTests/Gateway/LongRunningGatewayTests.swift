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

/// The sender in a long-running process, over real HTTP/2 and TLS to the mock gateway: outages,
/// connections that die silently, and feeds that block. Waits poll for a state (bounded by a
/// count, generous), never for a duration.
@Suite("Long-running sender against the mock: outages, silent deaths, blocking feeds")
struct LongRunningGatewayTests {
    let policy = APNsRetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(10), maximumReconnects: 2,
                             outageDelay: .milliseconds(2), maximumOutageDelay: .milliseconds(20))

    func notification(_ n: Int = 1) -> APNsNotification {
        APNsNotification(token: try! APNsDeviceToken(parsing: String(format: "%064x", n)), payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8),
                         topic: "com.example.app")
    }

    @Test("Gateway refusing connections for longer than the reconnect budget, then up: the same client delivers", .timeLimit(.minutes(1)))
    func outageThenRecovery() async throws {
        let f = try GatewayFixture()
        let relay = try TCPRelay(target: UInt16(f.gateway.providerPort))
        defer { relay.stop() }
        let client = APNsClient(endpoint: Endpoint(host: "127.0.0.1", port: Int(relay.port)), trust: .caFile(f.caBundle),
                                authentication: .certificate(try f.identity(.development)), policy: policy)
        for _ in 0..<10 {
            let down = await client.send(notification())
            guard case .failed(let why) = down.outcome else {
                Issue.record("a send succeeded while the gateway was down: \(down.outcome)")
                return
            }
            #expect(why.code == .gatewayUnreachable && why.description.hasPrefix("Cannot reach the gateway: ") && why.description.contains("refused"), "\(why)")
        }
        relay.up()
        let delivered = await Wait.until(seconds: 60, every: .milliseconds(1)) { await client.send(notification()).isDelivered }
        #expect(delivered, "the client never recovered after the gateway came back")
        await client.close()
    }

    @Test("An idle connection that died silently (no GOAWAY, no FIN) is noticed by PING; the next send goes out once on a new one",
          .timeLimit(.minutes(1)))
    func silentDeath() async throws {
        let f = try GatewayFixture()
        let relay = try TCPRelay(target: UInt16(f.gateway.providerPort))
        relay.up()
        defer { relay.stop() }
        let client = APNsClient(endpoint: Endpoint(host: "127.0.0.1", port: Int(relay.port)), trust: .caFile(f.caBundle),
                                authentication: .certificate(try f.identity(.development)), policy: policy, requestTimeout: 5,
                                // A PING unanswered for 2 s marks a connection dead: long enough that the new
                                // connection's PINGs are answered even on a starved CI machine (0.2 s was not,
                                // once: the live connection was replaced too), short enough to notice the
                                // silenced one well within the test's bound.
                                healthCheck: HTTP2HealthCheck(idleInterval: 0.05, timeout: 2))
        #expect(await client.send(notification(1)).isDelivered)
        relay.silenceExisting()
        let noticed = await Wait.until(seconds: 60) { relay.clientCloseCount >= 1 }
        #expect(noticed, "the client never gave up on the dead connection")
        let after = await client.send(notification(2))
        #expect(after.isDelivered)
        #expect(after.attempts == 1 && !after.possiblyDuplicated, "the send went into the dead connection first: \(after.attempts) attempts")
        #expect(relay.acceptedCount == 2)
        await client.close()
    }

    @Test("A batch feed that blocks does not stall another client on the same event loop", .timeLimit(.minutes(1)))
    func blockingFeedDoesNotStallTheLoop() async throws {
        let f = try GatewayFixture()
        let identity = try f.identity(.development)
        let batchClient = APNsClient(endpoint: f.endpoint, trust: .caFile(f.caBundle), authentication: .certificate(identity), concurrency: 1)
        let other = APNsClient(endpoint: f.endpoint, trust: .caFile(f.caBundle), authentication: .certificate(identity))
        let feed = GatedFeed(first: notification(1))
        let batch = Task { await batchClient.send(feed: feed) { _ in } }
        #expect(await Wait.until(seconds: 60) { feed.isBlocking })
        let result = await other.send(notification(2))
        feed.open()
        let summary = await batch.value
        #expect(result.isDelivered)
        #expect(summary.delivered == 1)
        #expect(!feed.timedOut, "the blocked feed held up the other client's send")
        await batchClient.close()
        await other.close()
    }
    @Test("A slow onResult does not stall another client on the same event loop", .timeLimit(.minutes(1)))
    func slowConsumerDoesNotStallTheLoop() async throws {
        let f = try GatewayFixture()
        let identity = try f.identity(.development)
        let batchClient = APNsClient(endpoint: f.endpoint, trust: .caFile(f.caBundle), authentication: .certificate(identity))
        let other = APNsClient(endpoint: f.endpoint, trust: .caFile(f.caBundle), authentication: .certificate(identity))
        let consumer = GatedConsumer()
        let batch = Task {
            await batchClient.send(feed: GatedFeed(first: notification(1), blocks: false)) { _ in consumer.consume() }
        }
        #expect(await Wait.until(seconds: 60) { consumer.isBlocking })
        let result = await other.send(notification(2))
        consumer.open()
        let summary = await batch.value
        #expect(result.isDelivered)
        #expect(summary.delivered == 1)
        #expect(!consumer.timedOut, "the blocked onResult held up the other client's send")
        await batchClient.close()
        await other.close()
    }
}

/// An `onResult` that blocks until `open()`, or 10 seconds (then `timedOut`).
final class GatedConsumer: @unchecked Sendable {
    private let lock = NSLock()
    private var blocking = false
    private var didTimeOut = false
    private let gate = DispatchSemaphore(value: 0)

    var isBlocking: Bool { lock.withLock { blocking } }
    var timedOut: Bool { lock.withLock { didTimeOut } }
    func open() { gate.signal() }

    func consume() {
        lock.withLock { blocking = true }
        if gate.wait(timeout: .now() + 10) == .timedOut { lock.withLock { didTimeOut = true } }
    }
}

/// One notification, then a `next()` that blocks until `open()`, or 10 seconds (then
/// `timedOut`: the deadlock a feed read on the event loop thread causes).
final class GatedFeed: APNsNotificationFeed, @unchecked Sendable {
    private let lock = NSLock()
    private var first: APNsNotification?
    private var blocking = false
    private let gate = DispatchSemaphore(value: 0)
    private var didTimeOut = false
    private let blocks: Bool

    /// `blocks: false`: a plain one-notification feed.
    init(first: APNsNotification, blocks: Bool = true) {
        self.first = first
        self.blocks = blocks
    }

    var isBlocking: Bool { lock.withLock { blocking } }
    var timedOut: Bool { lock.withLock { didTimeOut } }
    func open() { gate.signal() }

    func next() -> (index: Int, notification: APNsNotification)? {
        if let item = lock.withLock({ () -> APNsNotification? in defer { first = nil }; return first }) { return (0, item) }
        guard blocks else { return nil }
        lock.withLock { blocking = true }
        if gate.wait(timeout: .now() + 10) == .timedOut { lock.withLock { didTimeOut = true } }
        return nil
    }
}
