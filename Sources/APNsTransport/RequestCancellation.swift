// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
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
        /// Set on the loop thread once the request has a stream: who resets it, and which.
        var resetter: StreamResetter?
        var stream: Int32 = 0
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
        let (wasWritten, resetter, stream): (Bool, StreamResetter?, Int32) = state.withLock { state in
            guard !state.cancelled else { return (state.written, nil, 0) }
            state.cancelled = true
            defer { state.resetter = nil }
            return (state.written, state.resetter, state.stream)
        }
        resetter?.reset(stream)
        return wasWritten
    }

    /// Called by the session when the request got stream `stream`; false when it was
    /// cancelled already (the caller then ends it without sending).
    func attach(_ resetter: StreamResetter, stream: Int32) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.resetter = resetter
            state.stream = stream
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

/// Gives up one of a client session's streams from any thread (a cancelled request): hops to
/// the session's loop and abandons the stream there. One per session, shared by every
/// request's `RequestCancellation`, where each request used to carry a closure of its own.
/// Holds the session weakly: a cancellation handle must not keep a connection alive.
final class StreamResetter: Sendable {
    private let target: LoopBound<(role: WeakReference<HTTP2ClientRole>, session: WeakReference<HTTP2Session>)>

    init(role: HTTP2ClientRole, session: HTTP2Session) {
        target = LoopBound((WeakReference(object: role), WeakReference(object: session)), loop: session.connection.loop)
    }

    func reset(_ stream: Int32) {
        target.loop.execute { [target] in
            guard let role = target.value.role.object, let session = target.value.session.object else { return }
            role.abandon(stream, HTTP2ClientRole.cancelledError, in: session)
        }
    }
}
