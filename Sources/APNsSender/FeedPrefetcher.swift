import Foundation

/// Reads a `APNsNotificationFeed` on a thread of its own into a small bounded buffer, so a feed
/// that blocks (a `--tokens -` pipe whose writer is slow, a database cursor) never blocks the
/// event loop thread that sends and completes requests for every connection.
///
/// The buffer holds at most `capacity` notifications (memory stays flat whatever the feed).
/// `onAvailable` runs on the reader thread when a consumer found the buffer empty and there is
/// news since (an item, or the end of the feed): the consumer never polls.
final class FeedPrefetcher: @unchecked Sendable {
    typealias Item = (index: Int, notification: APNsNotification)

    enum Take {
        case item(Item)
        /// Nothing yet; `onAvailable` will run when there is.
        case empty
        case ended
    }

    /// Notifications read ahead of the sender at most.
    static let defaultCapacity = 256

    private let feed: any APNsNotificationFeed
    private let capacity: Int
    private let condition = NSCondition()
    private var buffer: [Item] = []
    private var head = 0
    private var ended = false
    private var stopped = false
    private var starved = false
    /// True while the reader thread is inside the feed's `next()`.
    private var reading = false
    /// Seconds `stop` waits for a `next()` in progress.
    static let stopWait = 1.0
    private var onAvailable: (@Sendable () -> Void)?

    init(feed: any APNsNotificationFeed, capacity: Int = FeedPrefetcher.defaultCapacity) {
        self.feed = feed
        self.capacity = max(1, capacity)
    }

    /// Starts the reader thread.
    func start(onAvailable: @escaping @Sendable () -> Void) {
        self.onAvailable = onAvailable
        let thread = Thread { [self] in read() }
        thread.name = "apnskit.feed"
        thread.start()
    }

    /// The next notification, if one was read already.
    func take() -> Take {
        condition.lock()
        defer { condition.unlock() }
        if head < buffer.count {
            let item = buffer[head]
            head += 1
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            }
            // The reader waits while the buffer is full; half empty is worth waking it for.
            if buffer.count - head == capacity / 2 { condition.signal() }
            return .item(item)
        }
        if ended { return .ended }
        starved = true
        condition.signal()
        return .empty
    }

    /// Stops reading (the run was stopped or cancelled) and returns what was read and not
    /// taken, so each still gets its result. A `next()` already running is waited for up to
    /// `stopWait` seconds (a file answers at once) and what it returns is included; a read
    /// still blocked after that (a pipe with nothing in it) has read nothing yet, and is left
    /// to end on its own: whatever arrives later is not read.
    func stop() -> [Item] {
        condition.lock()
        stopped = true
        let deadline = Date(timeIntervalSinceNow: Self.stopWait)
        while reading && condition.wait(until: deadline) {}
        let unread = Array(buffer[head...])
        buffer.removeAll()
        head = 0
        condition.signal()
        condition.unlock()
        return unread
    }

    private func read() {
        while true {
            condition.lock()
            while buffer.count - head >= capacity && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                onAvailable = nil
                return
            }
            reading = true
            condition.unlock()
            let item = feed.next()
            condition.lock()
            reading = false
            if stopped {
                // Read while `stop` waited: handed over with the rest of the buffer.
                if let item { buffer.append(item) }
                condition.broadcast()
                condition.unlock()
                onAvailable = nil
                return
            }
            if let item { buffer.append(item) } else { ended = true }
            let notify = starved
            starved = false
            condition.unlock()
            if notify { onAvailable?() }
            if item == nil {
                // The callback holds the run, which holds this prefetcher: dropping it here
                // breaks that cycle, or every batch would keep its run and connections alive.
                onAvailable = nil
                return
            }
        }
    }
}
