import Foundation

/// The client's single sends waiting for a slot of its `concurrency` window: `APNsClient.send`
/// parks each notification here with its continuation, and the client's one long-lived
/// `BatchRun` takes them in order as slots free up. Nothing reaches nghttp2 (or the wire)
/// before the run takes it, so a send cancelled while it waits here is certainly not sent.
final class SingleSendQueue: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var waiting: [(index: Int, notification: APNsNotification)] = []
    private var head = 0
    private var continuations: [Int: CheckedContinuation<APNsSendResult, Never>] = [:]
    /// Sends whose task was cancelled before they were queued (the cancellation handler can
    /// run before the continuation exists).
    private var cancelledEarly: Set<Int> = []
    private var nextIndex = 0
    private var closed = false

    /// A number that ties a send to its result.
    func reserveIndex() -> Int {
        lock.withLock {
            defer { nextIndex &+= 1 }
            return nextIndex
        }
    }

    enum Admission { case queued, cancelled, closed }

    /// Queues `notification`; `.cancelled`/`.closed`: it was not queued (the caller answers).
    func enqueue(_ index: Int, _ notification: APNsNotification, _ continuation: CheckedContinuation<APNsSendResult, Never>) -> Admission {
        lock.withLock {
            if cancelledEarly.remove(index) != nil { return .cancelled }
            if closed { return .closed }
            waiting.append((index, notification))
            continuations[index] = continuation
            return .queued
        }
    }

    /// The run's next notification (`BatchSource.queue`).
    func take() -> BatchSource.Take {
        lock.withLock {
            guard head < waiting.count else {
                if head > 0 {
                    waiting.removeAll(keepingCapacity: true)
                    head = 0
                }
                return closed ? .ended : .empty
            }
            let item = waiting[head]
            head += 1
            if head > 1024 && head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return .item(index: item.index, notification: item.notification)
        }
    }

    /// A send's task was cancelled and the run does not have it: if it still waits here it
    /// is removed and returned (it ends "not sent"); else it is remembered, in case its
    /// `enqueue` is still to come.
    func cancelWaiting(_ index: Int) -> APNsNotification? {
        lock.withLock {
            if let position = waiting[head...].firstIndex(where: { $0.index == index }) {
                return waiting.remove(at: position).notification
            }
            if continuations[index] == nil { cancelledEarly.insert(index) }
            return nil
        }
    }

    /// Forgets an early cancellation of `index` that came after its result (the send is over).
    func forget(_ index: Int) {
        lock.withLock { _ = cancelledEarly.remove(index) }
    }

    /// Hands `result` to the send waiting for it.
    func finish(_ result: APNsSendResult) {
        let continuation = lock.withLock { continuations.removeValue(forKey: result.index) }
        continuation?.resume(returning: result)
    }

    /// Takes no more sends; returns those still waiting (they end "not sent").
    func close() -> [(index: Int, notification: APNsNotification)] {
        lock.withLock {
            closed = true
            let left = Array(waiting[head...])
            waiting.removeAll()
            head = 0
            return left
        }
    }
}
