// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
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
/// `signal`/`broadcast` wake a sleeper after a change.
///
/// The lock is a pthread mutex and condition variable in one allocation beside the box: the
/// `NSCondition` it used to hold cost three allocations (the object, its mutex, its condition)
/// and a dynamic call per lock. State made per notification should not need a box at all: a
/// request's cancellation handle is one atomic word (`RequestCancellation`, issue 33). (A `ManagedBuffer` would save the second
/// allocation, but the standard library marks it non-`Sendable`, subclasses included.)
///
/// `@unchecked Sendable`: `value` is only ever reached inside `withLock`, with the mutex
/// held; the compiler cannot see a lock, so this is the one place that says so.
///
/// `public`, in a module no product exports, and not `package`: with `package` access the
/// `@inlinable` bodies were not inlined into the modules that call them (Swift 6.3 with
/// SwiftPM; the same declarations `public` are), so every `withLock` in the program ran the
/// unspecialized generic version with a closure context and its result returned indirectly.
/// `FIFO` is public for the same reason (docs/benchmarks.md, issue 33).
public final class Locked<Value>: @unchecked Sendable {
    /// No runtime exclusivity check: every access is inside the mutex, which already makes
    /// it exclusive (a nested `withLock` on the same box would deadlock before it could
    /// overlap), and the check cost about as much as the lock itself.
    @exclusivity(unchecked) @usableFromInline var value: Value
    @usableFromInline let primitives: UnsafeMutablePointer<LockPrimitives>

    public init(_ value: sending Value) {
        self.value = value
        primitives = .allocate(capacity: 1)
        primitives.initialize(to: LockPrimitives())
        precondition(pthread_mutex_init(&primitives.pointee.mutex, nil) == 0, "pthread_mutex_init failed")
        precondition(pthread_cond_init(&primitives.pointee.condition, nil) == 0, "pthread_cond_init failed")
    }

    deinit {
        pthread_cond_destroy(&primitives.pointee.condition)
        pthread_mutex_destroy(&primitives.pointee.mutex)
        primitives.deinitialize(count: 1)
        primitives.deallocate()
    }

    /// Runs `body` with the lock held and the value lent to it.
    @inlinable
    public func withLock<Result: Sendable>(_ body: (inout sending Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(&primitives.pointee.mutex)
        defer { pthread_mutex_unlock(&primitives.pointee.mutex) }
        return try body(&value)
    }

    /// Waits, with the lock released meanwhile, until `ready` returns true (or `deadline`
    /// passes), then runs `body` with the lock held. `ready` runs with the lock held before
    /// each wait and after each wake-up (spurious ones included); it may change the value,
    /// e.g. to note that a thread is waiting. After the deadline `body` runs whatever `ready`
    /// says: it looks at the state itself. Blocks the calling thread: only for threads of
    /// one's own, never a cooperative or event loop thread.
    @inlinable
    public func withLock<Result: Sendable>(waitingUntil ready: (inout sending Value) -> Bool, deadline: Date? = nil,
                                            _ body: (inout sending Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(&primitives.pointee.mutex)
        defer { pthread_mutex_unlock(&primitives.pointee.mutex) }
        // The default condition clock is CLOCK_REALTIME, the clock `Date` reads.
        var until = timespec()
        if let deadline {
            let seconds = deadline.timeIntervalSince1970.rounded(.down)
            until.tv_sec = Int(seconds)
            until.tv_nsec = Int((deadline.timeIntervalSince1970 - seconds) * 1e9)
        }
        while !ready(&value) {
            if deadline == nil {
                pthread_cond_wait(&primitives.pointee.condition, &primitives.pointee.mutex)
            } else if pthread_cond_timedwait(&primitives.pointee.condition, &primitives.pointee.mutex, &until) == ETIMEDOUT {
                break
            }
        }
        return try body(&value)
    }

    /// Wakes one thread waiting in `withLock(waitingUntil:)`. Call it after (or while) changing
    /// the value under the lock, so the waiter's `ready` sees the change.
    @inlinable
    public func signal() { pthread_cond_signal(&primitives.pointee.condition) }

    /// Wakes every thread waiting in `withLock(waitingUntil:)`.
    @inlinable
    public func broadcast() { pthread_cond_broadcast(&primitives.pointee.condition) }
}

/// The pthread objects behind a `Locked`, allocated once beside it.
@usableFromInline
struct LockPrimitives {
    @usableFromInline var mutex = pthread_mutex_t()
    @usableFromInline var condition = pthread_cond_t()
}
