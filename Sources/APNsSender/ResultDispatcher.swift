import Foundation

/// Calls a batch's `onResult` on a thread of its own, in order, so a slow consumer (a database
/// write, a file on a slow disk) never runs on the event loop thread that completes requests
/// for every connection.
///
/// Results wait in a queue; `backlog` lets the run stop taking new notifications while more
/// than `capacity` wait, so a consumer slower than the gateway slows the batch down instead of
/// growing memory. After each delivered stretch, `delivered(count)` tells the run.
final class ResultDispatcher: @unchecked Sendable {
    /// Results waiting for `onResult` at most, before the run stops taking new work.
    static let capacity = 1024
    /// Woken by a first result, the thread lingers up to `linger` seconds for more (or until
    /// `stretch` are waiting) and delivers them together: at thousands of results a second, a
    /// wake-up per result cost more CPU than sending it. `onResult` comes at most this late.
    static let linger = 0.002
    static let stretch = 64

    private let condition = NSCondition()
    private var queue: [APNsSendResult] = []
    private var inDelivery = 0
    private var idle = false
    private var closed = false
    /// Dropped when the thread ends: the run's closures hold the run, and the run holds this.
    private var deliver: (@Sendable (APNsSendResult) -> Void)?
    private var delivered: (@Sendable (Int) -> Void)?

    init(deliver: @escaping @Sendable (APNsSendResult) -> Void, delivered: @escaping @Sendable (Int) -> Void) {
        self.deliver = deliver
        self.delivered = delivered
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "apnskit.results"
        thread.start()
    }

    func submit(_ result: APNsSendResult) {
        condition.lock()
        queue.append(result)
        if idle && (queue.count == 1 || queue.count == Self.stretch) { condition.signal() }
        condition.unlock()
    }

    /// Results queued or being delivered.
    var backlog: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count + inDelivery
    }

    /// Ends the thread once the queue is empty.
    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !closed {
                idle = true
                condition.wait()
            }
            if !closed && queue.count < Self.stretch {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.linger))
            }
            idle = false
            if queue.isEmpty {
                deliver = nil
                delivered = nil
                condition.unlock()
                return
            }
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            inDelivery = batch.count
            let (deliver, delivered) = (self.deliver, self.delivered)
            condition.unlock()
            for result in batch { deliver?(result) }
            condition.lock()
            inDelivery = 0
            condition.unlock()
            delivered?(batch.count)
        }
    }
}
