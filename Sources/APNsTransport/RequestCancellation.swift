import Foundation
import Synchronized

/// Lets the task that made a request give it up after it was submitted, and tells it whether
/// the request had been written by then: the difference between "not sent" (send it again
/// freely) and "may have been delivered" (a resend may notify twice).
///
/// The written/cancelled decision is taken once, under one lock, by whichever comes first:
/// the session about to write the request's HEADERS frame (`markWritten`, on the loop thread,
/// from nghttp2's before-frame-send callback) or the caller's `cancel()`. A request cancelled
/// first is never written (the session drops its HEADERS frame); one written first is reset
/// (RST_STREAM CANCEL) so the server frees its stream slot, and its late answer is dropped.
package final class RequestCancellation: Sendable {
    private struct State {
        var written = false
        var cancelled = false
        /// Set on the loop thread once the request has a stream.
        var reset: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    package init() {}

    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Whether the request's HEADERS frame went out (or was handed to the connection's output).
    package var wasWritten: Bool { state.withLock { $0.written } }

    /// Gives the request up. Returns whether it had been written: false means the server can
    /// never see it. Calling again returns the same answer and does nothing more.
    @discardableResult
    package func cancel() -> Bool {
        let (wasWritten, reset): (Bool, (@Sendable () -> Void)?) = state.withLock { state in
            guard !state.cancelled else { return (state.written, nil) }
            state.cancelled = true
            defer { state.reset = nil }
            return (state.written, state.reset)
        }
        reset?()
        return wasWritten
    }

    /// Called by the session when the request got its stream; false when it was cancelled
    /// already (the caller then ends it without sending). `reset` must hop to the loop itself.
    func attach(_ reset: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.reset = reset
            return true
        }
    }

    /// Called just before the request's first byte is written (by the HTTP/2 session, on the
    /// loop thread, as its HEADERS frame is serialized; by any other connection as it takes the
    /// request): true means "write it" (from now on a cancel reports it written), false that
    /// it was cancelled first and must not be written.
    package func markWritten() -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.written = true
            return true
        }
    }
}
