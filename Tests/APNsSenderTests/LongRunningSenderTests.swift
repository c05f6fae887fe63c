// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
@testable import APNsSender
import Foundation
import Testing
import TestSupport

/// The sender inside a server that runs for months: it recovers from outages, spreads single
/// sends, honours cancellation, reads slow feeds off the loop and keeps provider tokens for
/// their lifetime. Against the scripted `FakeGateway`; the HTTP/2 versions run against the
/// mock gateway in APNsMockTests.
@Suite("Long-running sender: recovery, spreading, cancellation, slow feeds, token lifetime")
struct LongRunningSenderTests {
    /// Outage back-off in milliseconds, so a test covers many rounds quickly.
    let fast = APNsRetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(5), maximumReconnects: 2,
                           outageDelay: .milliseconds(2), maximumOutageDelay: .milliseconds(10))

    @Test("Gateway down for longer than the reconnect budget, then up: the same sender delivers again", .timeLimit(.minutes(1)))
    func recoversAfterOutage() async throws {
        var faults = FakeGateway.Faults()
        faults.failedConnects = 12  // several times maximumReconnects
        let gateway = FakeGateway(faults)
        let sender = BatchSender(connector: gateway, policy: fast)
        let notification = notifications(1)[0]
        var failures: [APNsSendResult] = []
        // Sends until one is delivered (each failed send returns at once).
        let delivered = await Wait.value(seconds: 50, every: .milliseconds(1)) { () -> APNsSendResult? in
            let result = await sender.send(notification)
            if result.isDelivered { return result }
            failures.append(result)
            return nil
        }
        #expect(delivered != nil, "the sender never recovered: \(failures.last.map { "\($0.outcome)" } ?? "")")
        #expect(!failures.isEmpty)
        for failure in failures {
            // Each failure says why (the round that gave up also says how often the pool tried:
            // "(3 attempts in a row, ...)"; the fast failures during the outage repeat its reason).
            guard case .failed(let error) = failure.outcome else {
                Issue.record("\(failure.outcome)")
                continue
            }
            #expect(error.code == .gatewayUnreachable && error.description.hasPrefix("Cannot reach the gateway: connection refused (scripted)"), "\(error)")
        }
        // Fast failures during the outage do not each cost a connect: the back-off holds them.
        #expect(gateway.connects == 13, "12 refused + 1 accepted connects, \(gateway.connects) made")
        await sender.close()
    }

    @Test("1,000 concurrent single sends from many tasks over connections: 4 spread over all four", .timeLimit(.minutes(1)))
    func singleSendsSpread() async throws {
        let gateway = FakeGateway()
        let sender = BatchSender(connector: gateway, connections: 4, policy: fast)
        let input = notifications(1_000)
        let delivered = await withTaskGroup(of: Bool.self) { group in
            for notification in input { group.addTask { await sender.send(notification).isDelivered } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(delivered == 1_000)
        let perConnection = gateway.connections.map(\.requestCount)
        #expect(perConnection.count == 4, "\(perConnection)")
        // Slots take from one queue as their windows free up, starting at a rotating slot:
        // not an exact split, but every connection carries a share.
        #expect(perConnection.allSatisfy { $0 >= 50 } && perConnection.reduce(0, +) == 1_000, "\(perConnection)")
        await sender.close()
    }

    @Test("A cancelled task's send ends at once with a cancelled result; the late answer is dropped", .timeLimit(.minutes(1)))
    func cancelledSend() async throws {
        var faults = FakeGateway.Faults()
        faults.holdAnswers = true
        let gateway = FakeGateway(faults)
        let sender = BatchSender(connector: gateway, policy: fast)
        let task = Task { await sender.send(notifications(1)[0]) }
        try #require(await Wait.until(seconds: 50, every: .milliseconds(1)) { gateway.heldCount >= 1 }, "the request never reached the gateway")
        task.cancel()
        let result = await task.value
        // Its request had gone out (the gateway holds it): it may be delivered, and says so.
        #expect(result.outcome == .cancelled(written: true) && result.mayHaveBeenDelivered)
        // The gateway answers later: nothing else happens, and the connection serves the next send.
        gateway.releaseHeld()
        let next = await sender.send(notifications(2)[1])
        #expect(next.isDelivered)
        #expect(gateway.connects == 1)
        await sender.close()
    }

    @Test("Cancelling a batch stops reading the feed; every notification taken ends with exactly one result", .timeLimit(.minutes(1)))
    func cancelledBatch() async throws {
        var faults = FakeGateway.Faults()
        faults.holdAnswers = true
        let gateway = FakeGateway(faults)
        let sender = BatchSender(connector: gateway, concurrency: 10, policy: fast)
        let collector = ResultCollector()
        let task = Task { await sender.send(APNsNotificationList(notifications(100_000))) { collector.add($0) } }
        try #require(await Wait.until(seconds: 50, every: .milliseconds(1)) { gateway.heldCount >= 10 }, "the window never reached the gateway")
        task.cancel()
        let summary = await task.value
        let held = gateway.heldCount
        gateway.releaseHeld()
        // The window's 10 were written (the gateway holds them): they may be delivered. What was
        // read and never written says so: "not sent" is a promise the caller can resend on.
        #expect(summary.cancelled == 10 && held == 10, "\(summary)")
        #expect(summary.cancelled + summary.notSent == summary.total)
        #expect(collector.results.filter { $0.outcome == .cancelled(written: false) }.allSatisfy { !$0.mayHaveBeenDelivered })
        #expect(summary.total < 1_000, "the feed was not read to the end: \(summary.total)")
        #expect(collector.results.count == summary.total)
        #expect(Set(collector.results.map(\.index)).count == summary.total)
        await sender.close()
    }

    @Test("Provider token: one JWT across 10,000 sends, replaced only past its age (fake clock)", .timeLimit(.minutes(1)))
    func tokenLifetime() async throws {
        let clock = FakeClock()
        let signer = try APNsTokenSigner(key: try PrivateKey.generate(.ec256), keyID: "ABC123DEFG", teamID: "TEAM123456")
        let cache = ProviderTokenCache(signer: signer, clock: { clock.now })
        let gateway = FakeGateway()
        let sender = BatchSender(connector: gateway, connections: 2, policy: fast, tokens: cache)
        // 10,000 sends spread over 39 minutes of fake time: one token.
        let input = notifications(10_000)
        let summary = await sender.send(ClockFeed(input, clock: clock, step: 39.0 * 60 / 10_000)) { _ in }
        #expect(summary.delivered == 10_000)
        #expect(cache.mintedCount == 1)
        #expect(gateway.authorizations.count == 1)
        // Past 40 minutes: exactly one more.
        clock.advance(by: 5 * 60)
        for notification in input.prefix(100) { _ = await sender.send(notification) }
        #expect(cache.mintedCount == 2)
        #expect(gateway.authorizations.count == 2)
        // An ExpiredProviderToken answer for a 1-minute-old token does not mint a new one
        // (that would earn TooManyProviderTokenUpdates); at 20 minutes it does.
        let current = try cache.token()
        clock.advance(by: 60)
        #expect(cache.invalidate(current) == false)
        #expect(try cache.token() == current)
        clock.advance(by: 20 * 60)
        #expect(cache.invalidate(current) == true)
        #expect(try cache.token() != current)
        #expect(cache.mintedCount == 3)
        await sender.close()
    }
    @Test("Topic and priority defaults live in the library: bundle id plus the push type's suffix, priority 5 for background")
    func headerDefaults() async throws {
        let gateway = FakeGateway()
        let sender = BatchSender(connector: gateway, policy: fast, defaultBundleID: "com.example.app")
        var voip = notifications(1)[0]
        voip.topic = nil
        voip.pushType = .voip
        var background = voip
        background.pushType = .background
        var chosen = background
        chosen.topic = "com.example.other"
        chosen.priority = .low
        for notification in [voip, background, chosen] { #expect(await sender.send(notification).isDelivered) }
        #expect(gateway.topicsAndPriorities == ["com.example.app.voip -", "com.example.app 5", "com.example.other 1"])
        await sender.close()
    }
}

/// A clock tests move by hand.
final class FakeClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_700_000_000)
    var now: Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// A feed that moves the fake clock by `step` seconds per notification.
final class ClockFeed: APNsNotificationFeed, @unchecked Sendable {
    private let inner: APNsNotificationList
    private let clock: FakeClock
    private let step: TimeInterval

    init(_ items: [APNsNotification], clock: FakeClock, step: TimeInterval) {
        inner = APNsNotificationList(items)
        self.clock = clock
        self.step = step
    }

    func next() -> (index: Int, notification: APNsNotification)? {
        clock.advance(by: step)
        return inner.next()
    }
}
