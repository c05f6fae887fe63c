// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Synchronized

/// One batch's feed, shared by its runs when its connections live on several event loops
/// (`--event-loops`): one `BatchRun` per loop, each with the pool slots of its loop, its own
/// lock and its own state machine, so the loops' threads do not meet at one lock per
/// notification. They meet here instead, once per stretch of up to `stretch` notifications
/// (`StretchSource`), and at the result thread they share (`ResultDispatcher`'s owners; both
/// are set up by `BatchSender.runsPerLoop`).
final class SharedFeed: Sendable {
    typealias Item = FeedPrefetcher.Item

    /// Notifications a run takes per visit. A run's window is 100 by default: a stretch refills
    /// a third of it, and a stopped run gives back at most this many it had taken and not sent.
    static let stretch = 32

    enum Stretch {
        case items([Item])
        /// Nothing now; the runs are pumped when there is.
        case empty
        case ended
    }

    private enum Base {
        /// A feed that never blocks, read by whichever run needs more, under `lock`.
        case inline(any APNsNotificationFeed)
        /// A feed that may block, read ahead on its own thread.
        case prefetched(FeedPrefetcher)
    }

    private let base: Base
    /// The inline feed's lock (a feed need not be safe to call from two threads), and whether
    /// it is over: ended, or stopped.
    private let over = Locked(false)

    init(_ feed: any APNsNotificationFeed) {
        base = feed.mayBlock ? .prefetched(FeedPrefetcher(feed: feed)) : .inline(feed)
    }

    /// Starts the read-ahead thread, if there is one; `onAvailable` pumps every run.
    func start(onAvailable: @escaping @Sendable () -> Void) {
        if case .prefetched(let prefetcher) = base { prefetcher.start(onAvailable: onAvailable) }
    }

    /// The next stretch, up to `limit` notifications.
    func take(upTo limit: Int) -> Stretch {
        switch base {
        case .prefetched(let prefetcher):
            return prefetcher.take(upTo: limit)
        case .inline(let feed):
            return over.withLock { over in
                if over { return .ended }
                var items: [Item] = []
                while items.count < limit {
                    guard let item = feed.next() else {
                        over = true
                        break
                    }
                    items.append(item)
                }
                return items.isEmpty ? .ended : .items(items)
            }
        }
    }

    /// Stops reading; what was read ahead and not taken (once: a second call returns none).
    func stop() -> [Item] {
        switch base {
        case .prefetched(let prefetcher): return prefetcher.stop()
        case .inline: over.withLock { $0 = true }; return []
        }
    }
}

/// One run's share of a `SharedFeed`: the stretch it took and has not sent yet. Taken from
/// under the run's lock only, so its own lock is never contended.
final class StretchSource: Sendable {
    private let shared: SharedFeed
    private let stash = Locked(FIFO<SharedFeed.Item>())

    init(_ shared: SharedFeed) {
        self.shared = shared
    }

    func take() -> BatchSource.Take {
        stash.withLock { stash in
            if let item = stash.popFirst() { return .item(index: item.index, notification: item.notification) }
            switch shared.take(upTo: SharedFeed.stretch) {
            case .items(let items):
                for item in items.dropFirst() { stash.append(item) }
                return .item(index: items[0].index, notification: items[0].notification)
            case .empty: return .empty
            case .ended: return .ended
            }
        }
    }

    /// This run's stash, and what the shared feed had read ahead if this run stops it first:
    /// each ends "not sent".
    func stop() -> [SharedFeed.Item] {
        stash.withLock { $0.drain() } + shared.stop()
    }
}
