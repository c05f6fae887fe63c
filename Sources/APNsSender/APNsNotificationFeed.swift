// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// Where a batch's notifications come from; `next` returns nil when done. Implementations
/// serialise it (a lock around a file reader, say). A feed that may block (`mayBlock`, the
/// default: files, pipes, databases) is read on a thread of its own, ahead of the sender; one
/// that never blocks (an in-memory list) may say so and is read inline, saving that thread.
public protocol APNsNotificationFeed: Sendable {
    /// The next notification and its position in the input (the result's `index`), nil at the end.
    /// Called from one thread at a time, but not always the same one.
    func next() -> (index: Int, notification: APNsNotification)?
    /// Whether `next` may wait for I/O or a lock held for long.
    var mayBlock: Bool { get }
}

extension APNsNotificationFeed {
    public var mayBlock: Bool { true }
}

