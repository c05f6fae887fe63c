// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Synchronized

/// A feed over notifications already in memory: read inline by the batch (it never blocks, so
/// no reader thread is started), each with its position in the list as its result's `index`.
public final class APNsNotificationList: APNsNotificationFeed, Sendable {
    private let items: [APNsNotification]
    private let position = Locked(0)

    /// A feed over `items`, in order.
    public init(_ items: [APNsNotification]) { self.items = items }

    public var mayBlock: Bool { false }

    /// The next item and its position in the list.
    public func next() -> (index: Int, notification: APNsNotification)? {
        position.withLock { position in
            guard position < items.count else { return nil }
            defer { position += 1 }
            return (position, items[position])
        }
    }
}
