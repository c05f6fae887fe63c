// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import Foundation
import Synchronized

/// The inbox: the newest `limit` requests the gateway answered, and the live subscribers
/// (the web page's server-sent events) that hear of each new one.
///
/// The gateway calls `gatewayAnswered` on its own event loop thread, so that path only takes
/// a lock, writes one slot of a ring and hands the entry to each subscriber's bounded buffer:
/// no allocation that grows, no waiting for a reader. A subscriber that falls
/// `subscriberBacklog` entries behind is closed (the page reconnects and reloads the list)
/// rather than buffered without bound.
package final class InboxStore: InboxSink, Sendable {
    /// Why 10,000: a day of a developer's test pushes, and at most about 55 MB even if every
    /// one carried the largest body the gateway keeps (5,121 bytes).
    package static let defaultLimit = 10_000
    /// Entries a live subscriber may have waiting; one more closes it.
    package static let subscriberBacklog = 256
    /// Live subscribers at once (each an open HTTP connection); more are answered 503.
    package static let maxSubscribers = 32

    package struct Entry: Sendable {
        /// 1, 2, 3, ... since start (not reset by `clear`): the page's and the API's key.
        package let id: Int
        package let event: InboxEvent
        /// Its text for `q`, folded the first time a search needs it.
        let search = SearchText()
    }

    package enum Update: Sendable {
        case added(Entry)
        case cleared
        /// Nothing new: lets a feed notice that its reader has gone (`InboxServer`'s ticker).
        case heartbeat
    }

    package let limit: Int
    private struct State {
        /// A ring once full: `entries[oldest]` is the oldest, the one before it the newest.
        var entries: [Entry] = []
        var oldest = 0
        var nextID = 1
        var subscribers: [Int: AsyncStream<Update>.Continuation] = [:]
        var nextSubscriber = 0
        var closed = false

        /// Yields to every subscriber; returns (and forgets) those whose backlog is full.
        mutating func broadcast(_ update: Update) -> [AsyncStream<Update>.Continuation] {
            var overflowing: [AsyncStream<Update>.Continuation] = []
            for (key, continuation) in subscribers {
                if case .dropped = continuation.yield(update) {
                    subscribers[key] = nil
                    overflowing.append(continuation)
                }
            }
            return overflowing
        }
    }

    private let state = Locked(State())
    /// Also handed each new entry (outside the lock, on the gateway's thread): the webhook's
    /// queue (`WebhookDelivery.enqueue`), which must return at once as well.
    private let onAdded: (@Sendable (Entry) -> Void)?

    package init(limit: Int = InboxStore.defaultLimit, onAdded: (@Sendable (Entry) -> Void)? = nil) {
        precondition(limit >= 1, "the inbox keeps at least one entry")
        self.limit = limit
        self.onAdded = onAdded
    }

    package func gatewayAnswered(_ event: InboxEvent) {
        let (entry, overflowing): (Entry, [AsyncStream<Update>.Continuation]) = state.withLock { state in
            let entry = Entry(id: state.nextID, event: event)
            state.nextID += 1
            if state.entries.count < limit {
                state.entries.append(entry)
            } else {
                state.entries[state.oldest] = entry
                state.oldest = (state.oldest + 1) % limit
            }
            return (entry, state.broadcast(.added(entry)))
        }
        // Outside the lock: finishing a stream wakes its reader.
        for continuation in overflowing { continuation.finish() }
        onAdded?(entry)
    }

    /// Empties the inbox (the page's "Clear"); ids go on from where they were.
    package func clear() {
        let overflowing: [AsyncStream<Update>.Continuation] = state.withLock { state in
            state.entries.removeAll()
            state.oldest = 0
            return state.broadcast(.cleared)
        }
        for continuation in overflowing { continuation.finish() }
    }

    /// Tells every live feed that nothing happened (see `Update.heartbeat`).
    package func heartbeat() {
        let overflowing = state.withLock { $0.broadcast(.heartbeat) }
        for continuation in overflowing { continuation.finish() }
    }

    /// The entries kept, newest first, that `matches` accepts, at most `maximum` of them;
    /// and how many are kept and were ever seen. The walk stops early (with what it found) once
    /// `abandoned` says the asker has gone or the store is closed: a search never outlives its
    /// client or holds up the server's shutdown.
    package func newest(_ maximum: Int, where matches: (Entry) -> Bool = { _ in true },
                       abandoned: () -> Bool = { false }) -> (entries: [Entry], kept: Int, seen: Int) {
        // A copy of the array is a reference under the lock; the filtering happens outside it.
        let (snapshot, start, seen) = state.withLock { ($0.entries, $0.oldest, $0.nextID - 1) }
        var found: [Entry] = []
        let count = snapshot.count
        var step = 0
        while step < count, found.count < maximum {
            if step % Self.abandonCheckInterval == 0, step > 0, abandoned() || isClosed { break }
            let entry = snapshot[(start + count - 1 - step) % count]
            if matches(entry) { found.append(entry) }
            step += 1
        }
        return (found, count, seen)
    }

    /// A live feed: `updates` ends when its backlog overflows or the store closes; its reader
    /// calls `unsubscribe(id)` when it stops reading for any other reason (its client left).
    package struct Subscription: Sendable {
        package let id: Int
        package let updates: AsyncStream<Update>
    }

    /// A live feed of updates, or nil when `maxSubscribers` are already listening or the
    /// store is closed.
    package func subscribe() -> Subscription? {
        let (stream, continuation) = AsyncStream<Update>.makeStream(bufferingPolicy: .bufferingOldest(Self.subscriberBacklog))
        let key: Int? = state.withLock { state in
            guard !state.closed, state.subscribers.count < Self.maxSubscribers else { return nil }
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        return key.map { Subscription(id: $0, updates: stream) }
    }

    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Entries kept now, and ever seen (`GET /api/stats`).
    package var counts: (kept: Int, seen: Int) { state.withLock { ($0.entries.count, $0.nextID - 1) } }

    /// Entries a search looks at between two checks that its client is still there.
    static let abandonCheckInterval = 256

    private var isClosed: Bool { state.withLock { $0.closed } }

    /// Forgets a feed and ends its stream (a no-op for one already gone).
    package func unsubscribe(_ id: Int) {
        state.withLock { $0.subscribers.removeValue(forKey: id) }?.finish()
    }

    /// Ends every live feed (the server is stopping); later subscriptions are refused.
    package func close() {
        let all: [AsyncStream<Update>.Continuation] = state.withLock { state in
            state.closed = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }
}
