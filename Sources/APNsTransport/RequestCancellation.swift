import Foundation

/// Lets the task that made a request give it up after it was submitted: `cancel()` from any
/// thread resets the request's stream (RST_STREAM CANCEL, on the loop thread), so the server
/// frees the stream slot at once instead of holding it until it answers or the request's
/// deadline. The request's completion then runs with `.cancelled`; a late answer is dropped.
///
/// `cancel()` may come before the session took the request (the task was cancelled while the
/// submission was on its way to the loop): the request is then never sent.
public final class RequestCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    /// Set on the loop thread once the request has a stream.
    private var reset: (@Sendable () -> Void)?

    public init() {}

    public var isCancelled: Bool { lock.withLock { cancelled } }

    public func cancel() {
        let reset: (@Sendable () -> Void)? = lock.withLock {
            guard !cancelled else { return nil }
            cancelled = true
            defer { self.reset = nil }
            return self.reset
        }
        reset?()
    }

    /// Called by the session when the request got its stream; false when it was cancelled
    /// already (the caller then ends it without sending). `reset` must hop to the loop itself.
    func attach(_ reset: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard !cancelled else { return false }
            self.reset = reset
            return true
        }
    }
}
