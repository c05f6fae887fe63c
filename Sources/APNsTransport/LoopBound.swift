// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A value that lives on one event loop, carried through code that must be `Sendable`.
///
/// The transport's connection objects (`Connection`, `HTTP2Session` and its roles, `Listener`,
/// `RawStream`, a server's bookkeeping) hold OpenSSL and nghttp2 objects and mutable state
/// that only their loop's thread may touch, so they are not `Sendable`. The `Sendable` types
/// that own them (`HTTP2Client`, `HTTP2Server`, `TLSClient`, ...) keep them in a `LoopBound`
/// and reach them only from closures that run on the loop (`loop.execute`), as swift-nio's
/// `NIOLoopBound` does.
///
/// Checked, not promised: making one and every access to `value` stop the process, in release
/// builds too (`EventLoop.preconditionInLoop`), when they happen off the loop's thread. A slip
/// is a crash that names the line, not a rare race inside OpenSSL; the check is one comparison
/// of thread identities per access (its cost on the push benchmark is in docs/benchmarks.md).
///
/// The one way to make one off the loop is `init(handingOver:loop:)`, whose value is `sending`:
/// the compiler proves the caller keeps no other way to reach it (a server's listener, made by
/// `start` and registered from the loop).
///
/// `@unchecked Sendable`: the wrapper moves between threads, the value is only reached on its
/// loop, which the initializer and the accessor check.
package struct LoopBound<Value>: @unchecked Sendable {
    package let loop: EventLoop
    private let storage: Value

    /// Wraps `value`, which already lives on `loop`; on the loop's thread only.
    package init(_ value: Value, loop: EventLoop) {
        loop.preconditionInLoop()
        self.loop = loop
        storage = value
    }

    /// Wraps `value` from any thread: `sending` means nothing else holds it, so it reaches
    /// the loop only through this wrapper (NIO's `NIOLoopBoundBox.makeBoxSendingValue`).
    package init(handingOver value: sending Value, loop: EventLoop) {
        self.loop = loop
        storage = value
    }

    /// The value; on the loop's thread only (checked in every build).
    package var value: Value {
        loop.preconditionInLoop()
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
