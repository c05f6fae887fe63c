// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A value that lives on one event loop, carried through code that must be `Sendable`.
///
/// The transport's connection objects (`Connection`, `HTTP2Session` and its roles, `Listener`,
/// `RawStream`, a server's bookkeeping) hold OpenSSL and nghttp2 objects and mutable state
/// that only their loop's thread may touch, so they are not `Sendable`. The `Sendable` types
/// that own them (`HTTP2Client`, `HTTP2Server`, `TLSClient`, ...) keep them in a `LoopBound`
/// and reach them only from closures that run on the loop (`loop.execute`), as swift-nio's
/// `NIOLoopBound` does: every access to `value` asserts, in debug builds, that it happens on
/// the loop thread, so a slip shows up in the tests (which run in debug) instead of as a rare
/// race in production.
///
/// Making one needs no loop thread: an object built elsewhere and never touched there again
/// is handed over to the loop (a server's listener is made by `start` and registered from
/// the loop).
///
/// `@unchecked Sendable`: the wrapper moves between threads, the value is only read on its
/// loop, which the accessor checks.
package struct LoopBound<Value>: @unchecked Sendable {
    package let loop: EventLoop
    private let storage: Value

    package init(_ value: Value, loop: EventLoop) {
        self.loop = loop
        storage = value
    }

    /// The value; on the loop thread only (asserted in debug builds).
    package var value: Value {
        assert(loop.inLoop, "A loop-bound value was used off its event loop's thread.")
        return storage
    }

    /// Whether the caller may use `value` now (it is on the loop's thread).
    package var isOnLoop: Bool { loop.inLoop }
}

/// A reference that does not keep its object alive, for a `LoopBound` a longer-lived party
/// holds (a request's cancellation handle must not keep its connection's session alive).
struct WeakReference<Object: AnyObject> {
    weak var object: Object?
}
