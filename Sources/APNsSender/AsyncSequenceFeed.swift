// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized

/// An `AsyncSequence` of notifications as a batch feed: a task iterates the sequence into a
/// small buffer, and the batch's reader thread takes from it (`next` may block: the feed says
/// `mayBlock`, so it is read on the prefetcher's thread, never on the event loop or a
/// cooperative thread). The task waits, without holding a thread, while the buffer is full:
/// a sequence faster than the gateway is held back instead of growing memory.
final class AsyncSequenceFeed: APNsNotificationFeed, Sendable {
    private struct State {
        var buffer = FIFO<APNsNotification>()
        var ended = false
        var stopped = false
        var nextIndex = 0
        /// The producer task waiting for room.
        var roomWaiter: CheckedContinuation<Void, Never>?
        /// What the sequence threw, if it did: the results sequence rethrows it at its end.
        var failure: (any Error)?
        var producer: Task<Void, Never>?
    }

    private let state = Locked(State())
    /// Open once the task iterating the sequence has ended.
    private let producerDone = Latch()

    /// What the sequence threw, if it did: the results sequence rethrows it at its end.
    var failure: (any Error)? { state.withLock { $0.failure } }

    /// Notifications buffered ahead of the batch at most.
    static let capacity = 256

    init<Notifications: AsyncSequence & Sendable>(_ notifications: Notifications) where Notifications.Element == APNsNotification {
        let producer = Task { [self] in
            do {
                for try await notification in notifications {
                    guard await put(notification) else { break }
                }
            } catch {
                state.withLock { $0.failure = error }
            }
            finish()
        }
        state.withLock { $0.producer = producer }
    }

    /// Stops iterating the sequence (the batch was stopped or its consumer left).
    func stop() {
        let (waiter, producer): (CheckedContinuation<Void, Never>?, Task<Void, Never>?) = state.withLock { state in
            state.stopped = true
            self.state.broadcast()
            defer { state.roomWaiter = nil }
            return (state.roomWaiter, state.producer)
        }
        waiter?.resume()
        producer?.cancel()
    }

    func next() -> (index: Int, notification: APNsNotification)? {
        let (taken, waiter): ((index: Int, notification: APNsNotification)?, CheckedContinuation<Void, Never>?)
        (taken, waiter) = state.withLock(waitingUntil: { !$0.buffer.isEmpty || $0.ended || $0.stopped }) { state in
            guard !state.stopped, let notification = state.buffer.popFirst() else { return (nil, nil) }
            let index = state.nextIndex
            state.nextIndex += 1
            defer { state.roomWaiter = nil }
            return ((index, notification), state.roomWaiter)
        }
        waiter?.resume()
        return taken
    }

    /// False once the feed was stopped: the producer ends. A notification pulled from the
    /// sequence is always kept, even after the stop: `takeUnread` hands it back for its
    /// "not sent" result.
    private func put(_ notification: APNsNotification) async -> Bool {
        while true {
            let outcome: Bool? = state.withLock { state in
                if state.stopped {
                    state.buffer.append(notification)
                    return false
                }
                guard state.buffer.count < Self.capacity else { return nil }
                state.buffer.append(notification)
                self.state.signal()
                return true
            }
            if let outcome { return outcome }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = state.withLock { state in
                    if state.stopped || state.buffer.count < Self.capacity { return true }
                    state.roomWaiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    private func finish() {
        state.withLock { state in
            state.ended = true
            self.state.broadcast()
        }
        producerDone.open()
    }

    /// Returns once the task iterating the sequence has ended (after `stop`, as soon as the
    /// sequence honours its task's cancellation).
    func waitForProducer() async {
        await producerDone.wait()
    }

    /// What was pulled from the sequence and never taken by the batch, with the indices it
    /// would have had: each still gets a result ("not sent").
    func takeUnread() -> [(index: Int, notification: APNsNotification)] {
        state.withLock { state in
            let left = state.buffer.drain().enumerated().map { (state.nextIndex + $0.offset, $0.element) }
            state.nextIndex += left.count
            return left
        }
    }
}

/// Results handed from the batch's result thread to the caller's task
/// (`send(contentsOf:onResult:)`), bounded: `put` blocks that thread (never a loop or
/// cooperative thread) while `capacity` results wait, which makes the batch stop taking new
/// notifications (`ResultDispatcher`'s back-pressure). The caller reads to the end, whatever
/// happens to its task: every result taken is handed over.
final class ResultChannel: Sendable {
    private struct State {
        var buffer = FIFO<APNsSendResult>()
        var finished = false
        /// Set when the client is closing: the batch was stopped, so at most what was in flight
        /// and read ahead still comes, and `put` no longer waits for a consumer that may not
        /// read again (a `close()` must not hang on it).
        var unbounded = false
        var consumer: CheckedContinuation<APNsSendResult?, Never>?
    }

    private let state = Locked(State())

    /// Results waiting for the consumer at most.
    static let capacity = 256

    /// Called on the batch's result thread.
    func put(_ result: APNsSendResult) {
        let consumer: CheckedContinuation<APNsSendResult?, Never>?
        consumer = state.withLock(waitingUntil: { $0.buffer.count < Self.capacity || $0.unbounded }) { state in
            if let consumer = state.consumer {
                state.consumer = nil
                return consumer
            }
            state.buffer.append(result)
            return nil
        }
        consumer?.resume(returning: result)
    }

    /// The batch is over: `next()` returns nil once the buffer is empty.
    func finish() {
        let consumer: CheckedContinuation<APNsSendResult?, Never>? = state.withLock { state in
            state.finished = true
            defer { state.consumer = nil }
            return state.buffer.isEmpty ? state.consumer : nil
        }
        consumer?.resume(returning: nil)
    }

    /// The client is closing: `put` stops waiting for room.
    func releaseBackPressure() {
        state.withLock { state in
            state.unbounded = true
            self.state.broadcast()
        }
    }

    /// The next result; nil after the last. Not ended by the caller's cancellation: a
    /// cancelled batch's results (the cancelled ones too) still come.
    func next() async -> APNsSendResult? {
        await withCheckedContinuation { continuation in
            let answer: APNsSendResult?? = state.withLock { state in
                if let result = state.buffer.popFirst() {
                    self.state.signal()
                    return .some(result)
                }
                if state.finished { return .some(nil) }
                state.consumer = continuation
                return .none
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }
}
