import Foundation

/// An `AsyncSequence` of notifications as a batch feed: a task iterates the sequence into a
/// small buffer, and the batch's reader thread takes from it (`next` may block: the feed says
/// `mayBlock`, so it is read on the prefetcher's thread, never on the event loop or a
/// cooperative thread). The task waits, without holding a thread, while the buffer is full:
/// a sequence faster than the gateway is held back instead of growing memory.
final class AsyncSequenceFeed: APNsNotificationFeed, @unchecked Sendable {
    // @unchecked: every field below is guarded by `condition`.
    private let condition = NSCondition()
    private var buffer: [APNsNotification] = []
    private var head = 0
    private var ended = false
    private var stopped = false
    private var nextIndex = 0
    /// The producer task waiting for room.
    private var roomWaiter: CheckedContinuation<Void, Never>?
    /// What the sequence threw, if it did: the results sequence rethrows it at its end.
    private(set) var failure: (any Error)? {
        get { condition.withLock { storedFailure } }
        set { condition.withLock { storedFailure = newValue } }
    }
    private var storedFailure: (any Error)?
    private var producer: Task<Void, Never>?

    /// Notifications buffered ahead of the batch at most.
    static let capacity = 256

    init<Notifications: AsyncSequence & Sendable>(_ notifications: Notifications) where Notifications.Element == APNsNotification {
        producer = Task { [self] in
            do {
                for try await notification in notifications {
                    guard await put(notification) else { break }
                }
            } catch {
                failure = error
            }
            finish()
        }
    }

    /// Stops iterating the sequence (the batch was stopped or its consumer left).
    func stop() {
        let waiter: CheckedContinuation<Void, Never>? = condition.withLock {
            stopped = true
            condition.broadcast()
            defer { roomWaiter = nil }
            return roomWaiter
        }
        waiter?.resume()
        producer?.cancel()
    }

    func next() -> (index: Int, notification: APNsNotification)? {
        condition.lock()
        while head == buffer.count && !ended && !stopped { condition.wait() }
        guard head < buffer.count, !stopped else {
            condition.unlock()
            return nil
        }
        let notification = buffer[head]
        head += 1
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            head = 0
        }
        let index = nextIndex
        nextIndex += 1
        let waiter = roomWaiter
        roomWaiter = nil
        condition.unlock()
        waiter?.resume()
        return (index, notification)
    }

    /// False once the feed was stopped: the producer ends. A notification pulled from the
    /// sequence is always kept, even after the stop: `takeUnread` hands it back for its
    /// "not sent" result.
    private func put(_ notification: APNsNotification) async -> Bool {
        while true {
            let outcome: Bool? = condition.withLock {
                if stopped {
                    buffer.append(notification)
                    return false
                }
                guard buffer.count - head < Self.capacity else { return nil }
                buffer.append(notification)
                condition.signal()
                return true
            }
            if let outcome { return outcome }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = condition.withLock {
                    if stopped || buffer.count - head < Self.capacity { return true }
                    roomWaiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    private func finish() {
        condition.withLock {
            ended = true
            condition.broadcast()
        }
        producerDone.withLock { $0.done = true; return $0.waiters }.forEach { $0.resume() }
    }

    private let producerDone = Locked((done: false, waiters: [CheckedContinuation<Void, Never>]()))

    /// Returns once the task iterating the sequence has ended (after `stop`, as soon as the
    /// sequence honours its task's cancellation).
    func waitForProducer() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = producerDone.withLock { state in
                if state.done { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// What was pulled from the sequence and never taken by the batch, with the indices it
    /// would have had: each still gets a result ("not sent").
    func takeUnread() -> [(index: Int, notification: APNsNotification)] {
        condition.withLock {
            let left = buffer[head...].enumerated().map { (nextIndex + $0.offset, $0.element) }
            nextIndex += left.count
            buffer.removeAll()
            head = 0
            return left
        }
    }
}

/// Results handed from the batch's result thread to an async consumer, bounded: `put` blocks
/// that thread (never a loop or cooperative thread) while `capacity` results wait, which makes
/// the batch stop taking new notifications (`ResultDispatcher`'s back-pressure).
final class ResultChannel: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var buffer: [APNsSendResult] = []
    private var head = 0
    private var finished = false
    private var failure: (any Error)?
    private var abandoned = false
    /// Set when the client is closing: the batch was stopped, so at most what was in flight and
    /// read ahead still comes, and `put` no longer waits for a consumer that may not read
    /// again (a `close()` must not hang on it).
    private var unbounded = false
    private var consumer: CheckedContinuation<APNsSendResult?, any Error>?

    /// Results waiting for the consumer at most.
    static let capacity = 256

    /// Called on the batch's result thread.
    func put(_ result: APNsSendResult) {
        condition.lock()
        while buffer.count - head >= Self.capacity && !abandoned && !unbounded { condition.wait() }
        if abandoned {
            condition.unlock()
            return
        }
        if let consumer {
            self.consumer = nil
            condition.unlock()
            consumer.resume(returning: result)
            return
        }
        buffer.append(result)
        condition.unlock()
    }

    /// The batch is over (`failure`: what the input sequence threw).
    func finish(throwing failure: (any Error)?) {
        let consumer: CheckedContinuation<APNsSendResult?, any Error>? = condition.withLock {
            finished = true
            self.failure = failure
            defer { self.consumer = nil }
            return head == buffer.count ? self.consumer : nil
        }
        if let failure { consumer?.resume(throwing: failure) } else { consumer?.resume(returning: nil) }
    }

    /// The client is closing: `put` stops waiting for room.
    func releaseBackPressure() {
        condition.withLock {
            unbounded = true
            condition.broadcast()
        }
    }

    /// The consumer left: results are dropped from now on and `put` never blocks again.
    func abandon() {
        condition.withLock {
            abandoned = true
            condition.broadcast()
        }
    }

    func next() async throws -> APNsSendResult? {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            if head < buffer.count {
                let result = buffer[head]
                head += 1
                if head == buffer.count {
                    buffer.removeAll(keepingCapacity: true)
                    head = 0
                }
                condition.signal()
                condition.unlock()
                continuation.resume(returning: result)
            } else if finished {
                let failure = self.failure
                self.failure = nil
                condition.unlock()
                if let failure { continuation.resume(throwing: failure) } else { continuation.resume(returning: nil) }
            } else {
                consumer = continuation
                condition.unlock()
            }
        }
    }
}
