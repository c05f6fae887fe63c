// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Foundation
import Synchronized

/// The client's single sends waiting for a slot of its `concurrency` window: `APNsClient.send`
/// parks each notification here with its continuation, and the client's one long-lived
/// `BatchRun` takes them in order as slots free up. Nothing reaches nghttp2 (or the wire)
/// before the run takes it, so a send cancelled while it waits here is certainly not sent.
///
/// The continuations are unsafe ones (no checking object allocated per send): each is resumed
/// exactly once by construction, as whoever takes it out of `continuations` under the lock
/// resumes it, and nothing else holds it (an `enqueue` that refuses hands it back unstored).
final class SingleSendQueue: Sendable {
    private struct State {
        var waiting = FIFO<(index: Int, notification: APNsNotification)>()
        var continuations: [Int: UnsafeContinuation<APNsSendResult, Never>] = [:]
        /// Sends whose task was cancelled before they were queued (the cancellation handler can
        /// run before the continuation exists).
        var cancelledEarly: Set<Int> = []
        var nextIndex = 0
        var closed = false
        /// The run asked for work and found none since the last send: the next send must pump
        /// it. Otherwise the run takes sends itself (each completion takes the next), and a
        /// send leaves the run's lock alone: with the run's loop thread and the senders' threads
        /// on different cores, that lock was contended on every send.
        var runWaiting = false
        /// Results finished on a loop thread, resumed together at the end of its turn
        /// (`finish`); `resumeScheduled` while such a stretch is pending.
        var finished: [(continuation: UnsafeContinuation<APNsSendResult, Never>, result: APNsSendResult)] = []
        var resumeScheduled = false
    }

    private let state = Locked(State())

    /// A number that ties a send to its result.
    func reserveIndex() -> Int {
        state.withLock { state in
            defer { state.nextIndex &+= 1 }
            return state.nextIndex
        }
    }

    enum Admission {
        /// Queued; `wakeRun`: the run is waiting for work and must be pumped.
        case queued(wakeRun: Bool)
        case cancelled, closed
    }

    /// Queues `notification`; `.cancelled`/`.closed`: it was not queued (the caller answers).
    func enqueue(_ index: Int, _ notification: APNsNotification, _ continuation: UnsafeContinuation<APNsSendResult, Never>) -> Admission {
        state.withLock { state in
            if !state.cancelledEarly.isEmpty, state.cancelledEarly.remove(index) != nil { return .cancelled }
            if state.closed { return .closed }
            state.waiting.append((index, notification))
            state.continuations[index] = continuation
            // Under the same lock as `take` sets it, so no send is left waiting: either the run's
            // `take` comes after this and finds it, or it came before and this send pumps.
            defer { state.runWaiting = false }
            return .queued(wakeRun: state.runWaiting)
        }
    }

    /// The run's next notification (`BatchSource.queue`). Empty: the run waits for work, and
    /// the next `enqueue` says to pump it. (The run asks only when a slot has room and a
    /// connection, or to start one; a slot that is full, connecting or holding is pumped
    /// again by its completion, its connect or its timer.)
    func take() -> BatchSource.Take {
        state.withLock { state in
            guard let item = state.waiting.popFirst() else {
                if state.closed { return .ended }
                state.runWaiting = true
                return .empty
            }
            return .item(index: item.index, notification: item.notification)
        }
    }

    /// A send's task was cancelled and the run does not have it: if it still waits here it
    /// is removed and returned (it ends "not sent"); else it is remembered, in case its
    /// `enqueue` is still to come.
    func cancelWaiting(_ index: Int) -> APNsNotification? {
        state.withLock { state in
            if let item = state.waiting.remove(firstWhere: { $0.index == index }) { return item.notification }
            if state.continuations[index] == nil { state.cancelledEarly.insert(index) }
            return nil
        }
    }

    /// Forgets an early cancellation of `index` that came after its result (the send is over).
    func forget(_ index: Int) {
        state.withLock { _ = $0.cancelledEarly.remove(index) }
    }

    /// Hands `result` to the send waiting for it. On an event loop's thread (an answer) the
    /// send is resumed at the end of the loop's turn, with every other send finished in that
    /// turn: resumed one by one between answers, nearly every send woke a pool thread, whose
    /// context switches cost more CPU than the sends themselves (`EventLoop.atEndOfTurn`).
    /// Elsewhere (a cancel, a send refused before it went out) it is resumed at once.
    func finish(_ result: APNsSendResult) {
        let onLoop = EventLoop.onLoopThread
        let (continuation, scheduleResume): (UnsafeContinuation<APNsSendResult, Never>?, Bool) = state.withLock { state in
            guard let continuation = state.continuations.removeValue(forKey: result.index) else { return (nil, false) }
            guard onLoop else { return (continuation, false) }
            state.finished.append((continuation, result))
            defer { state.resumeScheduled = true }
            return (nil, !state.resumeScheduled)
        }
        continuation?.resume(returning: result)
        if scheduleResume, !EventLoop.atEndOfTurn({ [self] in resumeFinished() }) { resumeFinished() }
    }

    /// Resumes every send finished and not yet resumed (the end of a loop's turn, or the run's
    /// end: no result is held past `BatchRun`'s finish).
    func resumeFinished() {
        let finished = state.withLock { state in
            state.resumeScheduled = false
            defer { state.finished.removeAll(keepingCapacity: true) }
            return state.finished
        }
        for (continuation, result) in finished { continuation.resume(returning: result) }
    }

    /// Sends finished and waiting for the end of their loop's turn (tests).
    var heldForEndOfTurn: Int { state.withLock { $0.finished.count } }
    /// Sends queued with their continuations and not yet finished (tests).
    var waitingCount: Int { state.withLock { $0.continuations.count } }

    /// Takes no more sends; returns those still waiting (they end "not sent").
    func close() -> [(index: Int, notification: APNsNotification)] {
        state.withLock { state in
            state.closed = true
            return state.waiting.drain()
        }
    }
}
