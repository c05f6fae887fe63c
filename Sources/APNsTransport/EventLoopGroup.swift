import Foundation

extension EventLoop {
    /// The most loops `sharedLoops(count:)` hands out: one per core the process may use.
    package static var coreLimit: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Up to `count` process-wide loops, never more than `coreLimit`: `shared` first, the
    /// others made on first use and kept for the life of the process (like `shared`).
    ///
    /// Why: one loop is one thread, so every connection on it shares one core; a sender with
    /// several connections puts each on the next of these loops to use several cores. More
    /// loops than cores would only add context switches. The caller never shuts these down.
    package static func sharedLoops(count: Int) -> [EventLoop] {
        let wanted = min(max(1, count), coreLimit)
        return SharedLoops.instance.first(wanted)
    }
}

/// The extra loops behind `EventLoop.sharedLoops(count:)`. `@unchecked Sendable`: `loops` is
/// guarded by `lock`.
private final class SharedLoops: @unchecked Sendable {
    static let instance = SharedLoops()
    private let lock = NSLock()
    private var loops: [EventLoop] = [.shared]

    func first(_ count: Int) -> [EventLoop] {
        lock.withLock {
            while loops.count < count { loops.append(EventLoop(name: "transport.loop.\(loops.count)")) }
            return Array(loops.prefix(count))
        }
    }
}
