import Foundation

/// A value behind a lock: the one way apnskit's modules share mutable state between threads,
/// so a class holding it is plainly `Sendable`, checked by the compiler, instead of promising
/// it in a comment (the shape of swift-certificates' `LockedValueBox`, NIO's
/// `NIOLockedValueBox` and the standard library's `Synchronization.Mutex`, which needs
/// macOS 15 while the package supports macOS 13).
///
/// `Value` need not be `Sendable` (a per-connection class, an open file), and the box is
/// `Sendable` whatever it holds, because nothing non-`Sendable` can get in or out unchecked:
/// the first value is taken as `sending` (the caller keeps no reference to it), `withLock`
/// lends the value as `inout sending` (the compiler refuses a body that stores into it a
/// non-`Sendable` value it captured, or hands a piece of it to a captured variable), and its
/// result must be `Sendable` (so a body cannot return a piece of the state either; with only
/// `sending` results, as `Mutex` has them, Swift 6.3 lets `withLock { $0 }` through). NIO's
/// `NIOLockedValueBox` holds any value too but is `Sendable` only when the value is;
/// swift-certificates' `LockedValueBox` takes `Sendable` values only.
///
/// It also waits: `withLock(waitingUntil:deadline:_:)` sleeps until the state says so, and
/// `signal`/`broadcast` wake a sleeper after a change (the lock is an `NSCondition`).
///
/// `@unchecked Sendable`: `value` is only ever reached inside `withLock`, with `condition`'s
/// lock held; the compiler cannot see a lock, so this is the one place that says so.
package final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let condition = NSCondition()
    @usableFromInline var value: Value

    package init(_ value: sending Value) { self.value = value }

    /// Runs `body` with the lock held and the value lent to it.
    @inlinable
    package func withLock<Result: Sendable>(_ body: (inout sending Value) throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&value)
    }

    /// Waits, with the lock released meanwhile, until `ready` returns true (or `deadline`
    /// passes), then runs `body` with the lock held. `ready` runs with the lock held before
    /// each wait and after each wake-up (spurious ones included); it may change the value,
    /// e.g. to note that a thread is waiting. After the deadline `body` runs whatever `ready`
    /// says: it looks at the state itself. Blocks the calling thread: only for threads of
    /// one's own, never a cooperative or event loop thread.
    @inlinable
    package func withLock<Result: Sendable>(waitingUntil ready: (inout sending Value) -> Bool, deadline: Date? = nil,
                                            _ body: (inout sending Value) throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        while !ready(&value) {
            if let deadline {
                if !condition.wait(until: deadline) { break }
            } else {
                condition.wait()
            }
        }
        return try body(&value)
    }

    /// Wakes one thread waiting in `withLock(waitingUntil:)`. Call it after (or while) changing
    /// the value under the lock, so the waiter's `ready` sees the change.
    @inlinable
    package func signal() { condition.signal() }

    /// Wakes every thread waiting in `withLock(waitingUntil:)`.
    @inlinable
    package func broadcast() { condition.broadcast() }
}
