// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized

/// Reads a `APNsNotificationFeed` on a thread of its own into a small bounded buffer, so a feed
/// that blocks (a `--tokens -` pipe whose writer is slow, a database cursor) never blocks the
/// event loop thread that sends and completes requests for every connection.
///
/// The buffer holds at most `capacity` notifications (memory stays flat whatever the feed).
/// `onAvailable` runs on the reader thread when a consumer found the buffer empty and there is
/// news since (an item, or the end of the feed): the consumer never polls.
final class FeedPrefetcher: Sendable {
    typealias Item = (index: Int, notification: APNsNotification)

    enum Take {
        case item(Item)
        /// Nothing yet; `onAvailable` will run when there is.
        case empty
        case ended
    }

    /// Notifications read ahead of the sender at most.
    static let defaultCapacity = 256
    /// Seconds `stop` waits for a `next()` in progress.
    static let stopWait = 1.0

    private let feed: any APNsNotificationFeed
    private let capacity: Int

    private struct State {
        var buffer = FIFO<Item>()
        var ended = false
        var stopped = false
        var starved = false
        /// True while the reader thread is inside the feed's `next()`.
        var reading = false
        /// The callback holds the run, which holds this prefetcher: the reader drops it when it
        /// ends, or every batch would keep its run and connections alive.
        var onAvailable: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    init(feed: any APNsNotificationFeed, capacity: Int = FeedPrefetcher.defaultCapacity) {
        self.feed = feed
        self.capacity = max(1, capacity)
    }

    /// Starts the reader thread.
    func start(onAvailable: @escaping @Sendable () -> Void) {
        state.withLock { $0.onAvailable = onAvailable }
        let thread = Thread { [self] in read() }
        thread.name = "apnskit.feed"
        thread.start()
    }

    /// The next notification, if one was read already.
    func take() -> Take {
        state.withLock { state in
            if let item = state.buffer.popFirst() {
                // The reader waits while the buffer is full; half empty is worth waking it for.
                if state.buffer.count == capacity / 2 { self.state.signal() }
                return .item(item)
            }
            if state.ended { return .ended }
            state.starved = true
            self.state.signal()
            return .empty
        }
    }

    /// Up to `limit` notifications read already, oldest first, in one lock: the runs of a batch
    /// spread over several event loops take stretches (`SharedFeed`). None: `.empty` (which
    /// arms `onAvailable`, as `take()` does) or `.ended`.
    func take(upTo limit: Int) -> SharedFeed.Stretch {
        state.withLock { state in
            var items: [Item] = []
            let before = state.buffer.count
            while items.count < limit, let item = state.buffer.popFirst() { items.append(item) }
            if !items.isEmpty {
                // As `take()`: the reader, waiting while the buffer is full, is woken once it
                // is half empty, not for every stretch (a wake-up per 32 notifications).
                if before > capacity / 2 && state.buffer.count <= capacity / 2 { self.state.signal() }
                return .items(items)
            }
            if state.ended { return .ended }
            state.starved = true
            self.state.signal()
            return .empty
        }
    }

    /// Stops reading (the run was stopped or cancelled) and returns what was read and not
    /// taken, so each still gets its result. A `next()` already running is waited for up to
    /// `stopWait` seconds (a file answers at once) and what it returns is included; a read
    /// still blocked after that (a pipe with nothing in it) has read nothing yet, and is left
    /// to end on its own: whatever arrives later is not read.
    func stop() -> [Item] {
        let deadline = Date(timeIntervalSinceNow: Self.stopWait)
        return state.withLock(waitingUntil: { state in
            state.stopped = true
            return !state.reading
        }, deadline: deadline) { state in
            let unread = state.buffer.drain()
            self.state.signal()
            return unread
        }
    }

    private func read() {
        while true {
            let go: Bool = state.withLock(waitingUntil: { $0.buffer.count < capacity || $0.stopped }) { state in
                if state.stopped {
                    state.onAvailable = nil
                    return false
                }
                state.reading = true
                return true
            }
            guard go else { return }
            let item = feed.next()
            let (more, notify): (Bool, (@Sendable () -> Void)?) = state.withLock { state in
                state.reading = false
                if state.stopped {
                    // Read while `stop` waited: handed over with the rest of the buffer.
                    if let item { state.buffer.append(item) }
                    self.state.broadcast()
                    state.onAvailable = nil
                    return (false, nil)
                }
                if let item { state.buffer.append(item) } else { state.ended = true }
                let notify = state.starved ? state.onAvailable : nil
                state.starved = false
                if item == nil { state.onAvailable = nil }
                return (item != nil, notify)
            }
            notify?()
            if !more { return }
        }
    }
}
