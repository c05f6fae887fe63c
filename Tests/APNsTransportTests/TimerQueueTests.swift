// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsTransport
import Testing

/// The event loop's timer heap, without a loop: order, ties, cancellation and its storage bound.
@Suite("Timer queue: a min-heap of deadlines")
struct TimerQueueTests {
    /// Pops everything due at `now` that was scheduled before the call.
    private func drain(_ queue: inout TimerQueue<Int>, now: UInt64) -> [Int] {
        let limit = queue.nextID
        var fired: [Int] = []
        while let value = queue.popDue(now: now, scheduledBefore: limit) { fired.append(value) }
        return fired
    }

    @Test("Timers fire earliest deadline first, and only once due")
    func deadlineOrder() {
        var queue = TimerQueue<Int>()
        for deadline in [50, 10, 40, 20, 30] { _ = queue.schedule(at: UInt64(deadline), deadline) }
        #expect(queue.nextDeadline() == 10)
        #expect(drain(&queue, now: 25) == [10, 20])
        #expect(queue.nextDeadline() == 30)
        #expect(drain(&queue, now: 100) == [30, 40, 50])
        #expect(queue.isEmpty && queue.nextDeadline() == nil)
    }

    @Test("Timers with the same deadline fire in the order they were scheduled")
    func equalDeadlinesKeepSchedulingOrder() {
        var queue = TimerQueue<Int>()
        for value in 0..<200 { _ = queue.schedule(at: value % 2 == 0 ? 7 : 5, value) }
        let odd = (0..<200).filter { $0 % 2 == 1 }, even = (0..<200).filter { $0 % 2 == 0 }
        #expect(drain(&queue, now: 7) == odd + even)
    }

    @Test("A cancelled timer never fires; cancelling a fired or unknown id changes nothing")
    func cancellation() {
        var queue = TimerQueue<Int>()
        let ids = (0..<10).map { queue.schedule(at: UInt64($0), $0) }
        queue.cancel(ids[0])
        queue.cancel(ids[5])
        queue.cancel(ids[5])
        #expect(queue.count == 8)
        #expect(queue.nextDeadline() == 1)
        #expect(drain(&queue, now: 3) == [1, 2, 3])
        queue.cancel(ids[2])  // already fired
        queue.cancel(9_999)   // never scheduled
        #expect(drain(&queue, now: 100) == [4, 6, 7, 8, 9])
    }

    @Test("A timer scheduled while due ones run waits for the next pass, even at deadline 0")
    func timersScheduledDuringAPassWait() {
        var queue = TimerQueue<Int>()
        _ = queue.schedule(at: 5, 1)
        let limit = queue.nextID
        #expect(queue.popDue(now: 5, scheduledBefore: limit) == 1)
        _ = queue.schedule(at: 0, 2)  // as a timer's work would, during the pass
        #expect(queue.popDue(now: 5, scheduledBefore: limit) == nil)
        #expect(drain(&queue, now: 5) == [2])
    }

    @Test("20,000 timers with random deadlines and a third cancelled fire in (deadline, scheduling) order")
    func manyTimers() {
        // A seeded linear congruential sequence: a failing order can be replayed.
        var state: UInt64 = 23
        func random() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var queue = TimerQueue<Int>()
        var live: [(deadline: UInt64, value: Int)] = []
        var ids: [UInt64] = []
        for value in 0..<20_000 {
            let deadline = random() % 5_000
            ids.append(queue.schedule(at: deadline, value))
            live.append((deadline, value))
        }
        var cancelled = Set<Int>()
        for value in 0..<20_000 where random() % 3 == 0 {
            queue.cancel(ids[value])
            cancelled.insert(value)
        }
        let expected = live.filter { !cancelled.contains($0.value) }
            .sorted { $0.deadline != $1.deadline ? $0.deadline < $1.deadline : $0.value < $1.value }
        var fired: [Int] = []
        for now in stride(from: UInt64(0), through: 5_000, by: 250) { fired += drain(&queue, now: now) }
        #expect(fired == expected.map(\.value))
        #expect(queue.isEmpty)
    }

    /// A client schedules a timeout per request and cancels it when the answer comes, long
    /// before it is due: lazily cancelled entries never reach the top, so without compaction
    /// they would pile up.
    @Test("100,000 far timeouts, 9 in 10 cancelled: at most 2 x live + 64 heap entries, and the live ones all fire in order")
    func cancelledEntriesAreBounded() {
        var queue = TimerQueue<Int>()
        _ = queue.schedule(at: 1_000_000, -1)
        var most = 0
        for value in 0..<100_000 {
            let id = queue.schedule(at: 10_000_000 + UInt64(value), value)
            if value % 10 != 0 { queue.cancel(id) }
            most = max(most, queue.storedEntries - 2 * queue.count)
        }
        #expect(most <= 64)
        #expect(queue.count == 10_001)
        #expect(drain(&queue, now: .max) == [-1] + Array(stride(from: 0, to: 100_000, by: 10)))
    }
}
