// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized
internal import CShims

/// Lets the task that made a request give it up after it was submitted, and tells it whether
/// the request had been written by then: the difference between "not sent" (send it again
/// freely) and "may have been delivered" (a resend may notify twice).
///
/// The written/cancelled decision is taken once, by whichever comes first: the session about
/// to write the frame that ends the request (`markWritten`, on the loop thread: its HEADERS
/// frame from nghttp2's before-frame-send callback, or its body's last DATA frame from the
/// data provider) or the caller's `cancel()`. A request cancelled first never reaches the
/// server whole (the session drops its HEADERS frame, or resets the stream before the body's
/// end), so the server cannot have processed it; one written first is reset (RST_STREAM
/// CANCEL) so the server frees its stream slot, and its late answer is dropped.
///
/// It is also the client session's record of the request while it is on its stream
/// (`HTTP2ClientRole`): who is told the outcome, the request body still to write, and the
/// answer as it arrives. One object per request where the handle and the session's stream
/// record were two (docs/benchmarks.md, issue 33). A handle serves one request: `submit`
/// refuses one that was submitted before. The client makes one itself for a caller who gives
/// none.
///
/// The decision is one atomic word, not a lock: every notification makes one of these, and a
/// `Locked` cost two more allocations, a mutex and a condition made and destroyed, and a lock
/// round per call (about 1,200 instructions per notification; docs/benchmarks.md, issue 33).
/// `@unchecked Sendable`: `decision` is only reached through the atomic operations;
/// `resetter` and `stream` are written once, on the loop thread, before `attached` is set
/// (release), and read only by the `cancel()` that saw `attached` (acquire); the stream record
/// is read and written only by the one session that took the handle (`claim`), on its loop
/// thread, whose role checks that it runs there.
package final class RequestCancellation: @unchecked Sendable {
    /// The bits of `decision`. `cancelled` and `written` exclude each other's later setting:
    /// whichever is set first decides, so every `cancel()` gives the same answer.
    private enum Bit {
        static let cancelled: UInt32 = 1
        static let written: UInt32 = 2
        /// `resetter` and `stream` are set: a `cancel()` from now on resets the stream.
        static let attached: UInt32 = 4
        /// A session took the handle for its request (`claim`).
        static let claimed: UInt32 = 8
    }

    /// The first stored property: its address is the object's first stored byte
    /// (`_getUnsafePointerToStoredProperties`, as swift-atomics' `ManagedAtomic` finds its
    /// storage), so it stays put for the object's life. Never read or written as a property.
    private var decision: UInt32 = 0
    /// No runtime exclusivity checks: written once before `attached` is set and read only
    /// after it was seen (the ordering above), never two accesses at once.
    @exclusivity(unchecked) private var resetter: StreamResetter?
    @exclusivity(unchecked) private var stream: Int32 = 0

    // The stream record (`HTTP2ClientRole`), loop thread only. No runtime exclusivity checks,
    // as the role's own state: nothing that runs while an access is open reaches the record
    // again (a receiver, which may submit, is told only after its stream left the book).
    /// Told the outcome, exactly once: the submitter's own request object.
    @exclusivity(unchecked) var receiver: (any HTTP2ResponseReceiver)?
    @exclusivity(unchecked) var status = 0
    @exclusivity(unchecked) var headers: [(name: String, value: String)] = []
    @exclusivity(unchecked) var body: [UInt8] = []
    @exclusivity(unchecked) var requestBody: [UInt8] = []
    /// How much of `requestBody` is written.
    @exclusivity(unchecked) var offset = 0
    /// The request's timeout in seconds (0: none), for the sentence when it passes.
    @exclusivity(unchecked) var timeout = 0.0
    /// Whether the session's state machine holds a deadline for it.
    @exclusivity(unchecked) var hasDeadline = false
    /// Header list bytes received so far (see `HTTP2Settings.maxHeaderListSize`).
    @exclusivity(unchecked) var headerBytes = 0

    package init() {}

    private var word: UnsafeMutablePointer<UInt32> {
        _getUnsafePointerToStoredProperties(self).assumingMemoryBound(to: UInt32.self)
    }

    package var isCancelled: Bool { shim_atomic_load_u32(word) & Bit.cancelled != 0 }

    /// Whether the request went out whole (its last frame was handed to the connection's output).
    package var wasWritten: Bool { shim_atomic_load_u32(word) & Bit.written != 0 }

    /// Gives the request up. Returns whether it had been written: false means the server can
    /// never have all of it. Calling again returns the same answer and does nothing more.
    @discardableResult
    package func cancel() -> Bool {
        let before = shim_atomic_fetch_or_u32(word, Bit.cancelled)
        if before & (Bit.cancelled | Bit.attached) == Bit.attached, let resetter { resetter.reset(stream) }
        return before & Bit.written != 0
    }

    /// Tells the receiver the request's outcome and lets it go (the record may outlive the
    /// stream in its caller's hands; the receiver, often holding the caller's run, must not).
    func tell(_ outcome: Result<HTTP2Response, TransportError>) {
        let receiver = self.receiver
        self.receiver = nil
        receiver?.received(outcome)
    }

    /// Called by the session that takes the handle for its request, before anything else:
    /// false when a session took it before (a handle serves one request).
    func claim() -> Bool {
        shim_atomic_fetch_or_u32(word, Bit.claimed) & Bit.claimed == 0
    }

    /// Called by the session when the request got stream `stream`; false when it was
    /// cancelled already (the caller then ends it without sending).
    func attach(_ resetter: StreamResetter, stream: Int32) -> Bool {
        self.resetter = resetter
        self.stream = stream
        return shim_atomic_or_unless_u32(word, Bit.attached, Bit.cancelled) & Bit.cancelled == 0
    }

    /// Called just before the request's last part is written (by the HTTP/2 session, on the
    /// loop thread, as the frame with END_STREAM is serialized; by any other connection as it
    /// takes the request): true means "write it" (from now on a cancel reports it written),
    /// false that it was cancelled first and must not be finished.
    package func markWritten() -> Bool {
        shim_atomic_or_unless_u32(word, Bit.written, Bit.cancelled) & Bit.cancelled == 0
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
