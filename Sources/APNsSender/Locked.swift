import Foundation

/// A value behind a lock: the one way this module shares mutable state between threads, so
/// the compiler sees a `Sendable` box instead of a class promising it in a comment (the shape
/// of swift-certificates' `LockedValueBox`).
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only reached through `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
