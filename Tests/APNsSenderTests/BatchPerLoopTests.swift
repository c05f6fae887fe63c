// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsSender
import Foundation
import Testing
import TestSupport

/// A batch whose connections live on several event loops runs as one `BatchRun` per loop,
/// taking notifications from one `SharedFeed` in stretches (issue 33, item 4). What a run took
/// and did not send must still end with exactly one result, "not sent", and never reach the
/// gateway; the runs' totals add up to the batch's.
@Suite("Batches on several event loops: one run per loop, notifications taken in stretches")
struct BatchPerLoopTests {
    let fast = APNsRetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(5), maximumReconnects: 2)

    /// `APNsNotificationList`, counting what it handed out (every one must get a result), read
    /// inline or, with `mayBlock`, ahead on its own thread.
    final class CountingFeed: APNsNotificationFeed, @unchecked Sendable {
        let list: APNsNotificationList
        let mayBlock: Bool
        private let lock = NSLock()
        private var count = 0

        init(_ count: Int, readAhead: Bool) {
            list = APNsNotificationList(notifications(count))
            mayBlock = readAhead
        }

        /// Notifications handed out so far.
        var pulled: Int { lock.withLock { count } }

        func next() -> (index: Int, notification: APNsNotification)? {
            guard let item = list.next() else { return nil }
            lock.withLock { count += 1 }
            return item
        }
    }

    /// Indices of `results`, and whether each appears once.
    static func indices(_ results: [APNsSendResult]) -> (set: Set<Int>, once: Bool) {
        let set = Set(results.map(\.index))
        return (set, set.count == results.count)
    }

    /// A batch of 100,000 on two connections, one per loop, with windows of 5, once the
    /// gateway holds both windows unanswered.
    func heldBatch(readAhead: Bool) async throws
        -> (FakeGateway, BatchSender, ResultCollector, CountingFeed, Task<APNsBatchSummary, Never>) {
        var faults = FakeGateway.Faults()
        faults.holdAnswers = true
        let gateway = FakeGateway(faults, loops: 2)
        let sender = BatchSender(connector: gateway, connections: 2, concurrency: 5, policy: fast)
        let collector = ResultCollector()
        let feed = CountingFeed(100_000, readAhead: readAhead)
        let task = Task { await sender.send(feed) { collector.add($0) } }
        try #require(await Wait.until(seconds: 50, every: .milliseconds(1)) { gateway.heldCount >= 10 }, "the windows never reached the gateway")
        return (gateway, sender, collector, feed, task)
    }

    @Test("Four connections on two loops: every notification delivered once, every connection used, the totals add up",
          .timeLimit(.minutes(1)), arguments: [false, true])
    func everyNotificationOnce(readAhead: Bool) async throws {
        let gateway = FakeGateway(loops: 2)
        let sender = BatchSender(connector: gateway, connections: 4, concurrency: 5, policy: fast)
        let collector = ResultCollector()
        let count = 1_000
        let summary = await sender.send(CountingFeed(count, readAhead: readAhead)) { collector.add($0) }
        await sender.close()
        let (indices, once) = Self.indices(collector.results)
        #expect(once && indices == Set(0..<count), "\(collector.results.count) results, \(indices.count) distinct")
        #expect(summary.total == count && summary.delivered == count, "\(summary)")
        #expect(gateway.acceptedSoFar.count == count && gateway.acceptedSoFar.values.allSatisfy { $0 == 1 })
        let connections = gateway.connectionsSoFar
        #expect(connections.count == 4 && connections.allSatisfy { $0.requestCount > 0 },
                "requests per connection: \(connections.map(\.requestCount))")
    }

    @Test("Cancelled on two loops: the written window is cancelled, each run's stretch and the read-ahead end not sent, once each, and never reach the gateway",
          .timeLimit(.minutes(1)), arguments: [false, true])
    func cancelled(readAhead: Bool) async throws {
        let (gateway, sender, collector, feed, task) = try await heldBatch(readAhead: readAhead)
        task.cancel()
        let summary = await task.value
        gateway.releaseHeld()
        await sender.close()
        let results = collector.results
        let (_, once) = Self.indices(results)
        #expect(once && results.count == summary.total && results.count == feed.pulled,
                "\(results.count) results, total \(summary.total), \(feed.pulled) read from the feed")
        #expect(summary.cancelled == 10 && summary.cancelled + summary.notSent == summary.total, "\(summary)")
        // No more was read than a stretch per run and, read ahead, the prefetcher's buffer and
        // the read in progress (the bound). Read inline, each run took a whole stretch of
        // `SharedFeed.stretch` and sent its window of 5 from it (read ahead, a stretch is what
        // the reader thread had got to).
        let readAheadBound = readAhead ? FeedPrefetcher.defaultCapacity + 1 : 0
        #expect(summary.notSent <= 2 * SharedFeed.stretch + readAheadBound, "\(summary)")
        if !readAhead { #expect(summary.notSent == 2 * (SharedFeed.stretch - 5), "\(summary)") }
        let notSent = results.filter { $0.outcome == .cancelled(written: false) }
        #expect(notSent.count == summary.notSent && notSent.allSatisfy { !$0.mayHaveBeenDelivered })
        // The fake answers the released ten in tasks of its own, which the close does not wait
        // for: wait for them, then nothing else may have arrived.
        #expect(await Wait.until(seconds: 50, every: .milliseconds(1)) { gateway.requestsSoFar >= 10 })
        #expect(gateway.requestsSoFar == 10, "a notification reported not sent reached the gateway")
        #expect(Set(notSent.map(\.apnsIDText)).isDisjoint(with: gateway.acceptedSoFar.keys))
    }

    @Test("Closed on two loops: what is in flight gets its answer, the rest ends not sent, once each", .timeLimit(.minutes(1)))
    func stopped() async throws {
        let (gateway, sender, collector, feed, batch) = try await heldBatch(readAhead: false)
        let closing = Task { await sender.close() }
        // The close stops both runs before it waits: then the held requests are answered.
        try #require(await Wait.until(seconds: 50, every: .milliseconds(1)) { collector.results.count >= 2 * (SharedFeed.stretch - 5) },
                     "the stopped runs' stretches never ended")
        gateway.releaseHeld()
        let summary = await batch.value
        await closing.value
        let (_, once) = Self.indices(collector.results)
        #expect(once && collector.results.count == summary.total && collector.results.count == feed.pulled,
                "\(collector.results.count) results, total \(summary.total), \(feed.pulled) read from the feed")
        #expect(summary.delivered == 10 && summary.notSent == 2 * (SharedFeed.stretch - 5) && summary.delivered + summary.notSent == summary.total,
                "\(summary)")
        #expect(gateway.requestsSoFar == 10, "a notification reported not sent reached the gateway")
    }
}
