// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized

/// Calls a batch's `onResult` on a thread of its own, in order, so a slow consumer (a database
/// write, a file on a slow disk) never runs on the event loop thread that completes requests
/// for every connection.
///
/// Results wait in a queue; the run counts what it handed over and was not yet delivered, and
/// stops taking new notifications while more than `capacity` wait, so a consumer slower than
/// the gateway slows the batch down instead of growing memory. After each delivered stretch,
/// `delivered(count)` tells the run.
///
/// A batch on several event loops has one run per loop and one dispatcher for all of them
/// (`owners`): `onResult` is still called one result at a time, from one thread, and each run
/// is told how many of its own results went through. It ends once every owner closed it.
final class ResultDispatcher: Sendable {
    /// Results waiting for `onResult` at most, before the run stops taking new work.
    static let capacity = 1024
    /// Woken by a first result, the thread lingers up to `linger` seconds for more (or until
    /// `stretch` are waiting) and delivers them together: at thousands of results a second, a
    /// wake-up per result cost more CPU than sending it. `onResult` comes at most this late.
    static let linger = 0.002
    static let stretch = 64

    private struct State {
        var queue: [APNsSendResult] = []
        /// Whose each queued result is, when there are several owners (else empty).
        var resultOwners: [Int] = []
        /// Owners that have not closed the dispatcher yet.
        var open: Int
        /// The thread waits for a first result or lingers for more: `submit` wakes it.
        var idle = false
        var closed = false
        /// Dropped when the thread ends: the run's closures hold the run, and the run holds this.
        var deliver: (@Sendable (APNsSendResult) -> Void)?
        var delivered: (@Sendable (_ owner: Int, _ count: Int) -> Void)?
    }

    private let state: Locked<State>
    private let owners: Int

    /// `owners`: the runs that submit results (one per event loop of a batch), numbered from 0.
    init(owners: Int = 1, deliver: @escaping @Sendable (APNsSendResult) -> Void) {
        self.owners = max(1, owners)
        state = Locked(State(open: self.owners, deliver: deliver))
    }

    /// Starts the thread; `delivered(count)` runs on it after each delivered stretch (one owner).
    func start(delivered: @escaping @Sendable (Int) -> Void) {
        start { _, count in delivered(count) }
    }

    /// Starts the thread; `delivered(owner, count)` runs on it after each delivered stretch,
    /// once for each owner with results in it.
    func start(delivered: @escaping @Sendable (_ owner: Int, _ count: Int) -> Void) {
        state.withLock { $0.delivered = delivered }
        let thread = Thread { [self] in run() }
        thread.name = "apnskit.results"
        thread.start()
    }

    func submit(_ result: consuming APNsSendResult, owner: Int = 0) {
        // Moved into the queue, not copied (a retain and a release of each of its fields).
        var handed = Optional(consume result)
        state.withLock { state in
            if let result = handed.take() { state.queue.append(result) }
            if owners > 1 { state.resultOwners.append(owner) }
            if state.idle && (state.queue.count == 1 || state.queue.count == Self.stretch) { self.state.signal() }
        }
    }

    /// One owner is done; the thread ends once every owner is and the queue is empty.
    func close() {
        state.withLock { state in
            state.open -= 1
            guard state.open <= 0 else { return }
            state.closed = true
            self.state.signal()
        }
    }

    private func run() {
        while true {
            state.withLock(waitingUntil: { state in
                if !state.queue.isEmpty || state.closed { return true }
                state.idle = true
                return false
            }) { _ in }
            let work: (batch: [APNsSendResult], resultOwners: [Int], deliver: (@Sendable (APNsSendResult) -> Void)?,
                       delivered: (@Sendable (Int, Int) -> Void)?)?
            work = state.withLock(waitingUntil: { $0.closed || $0.queue.count >= Self.stretch },
                                  deadline: Date(timeIntervalSinceNow: Self.linger)) { state in
                state.idle = false
                if state.queue.isEmpty {
                    state.deliver = nil
                    state.delivered = nil
                    return nil
                }
                let batch = state.queue
                let resultOwners = state.resultOwners
                state.queue.removeAll(keepingCapacity: true)
                state.resultOwners.removeAll(keepingCapacity: true)
                return (batch, resultOwners, state.deliver, state.delivered)
            }
            guard let work else { return }
            // Each result lent from the batch, not copied out of it by an iterator (a retain and
            // a release of each of its fields).
            if let deliver = work.deliver {
                work.batch.withUnsafeBufferPointer { results in
                    for index in results.indices { deliver(results[index]) }
                }
            }
            guard let delivered = work.delivered else { continue }
            if owners == 1 {
                delivered(0, work.batch.count)
            } else {
                var counts = [Int](repeating: 0, count: owners)
                for owner in work.resultOwners { counts[owner] += 1 }
                for (owner, count) in counts.enumerated() where count > 0 { delivered(owner, count) }
            }
        }
    }
}
