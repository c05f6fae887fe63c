// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Synchronized

/// Connections the mock gateway closed or saw closed, counted by reason (`ClosedConnection`'s
/// words, plus `connection-limit` for those refused at accept), for `GET /api/stats`: a client
/// whose connections keep ending can see why without reading the log.
package final class ClosedConnectionCounts: Sendable {
    private let counts = Locked<[String: Int]>([:])
    /// The gateway's connection limit, whose refusals count as `connection-limit`.
    private let limit = Locked<ConnectionLimit?>(nil)

    package init() {}

    func count(_ closed: ClosedConnection) {
        counts.withLock { $0[closed.reason, default: 0] += 1 }
    }

    func countRefusals(of limit: ConnectionLimit) {
        self.limit.withLock { $0 = limit }
    }

    /// Reason -> connections, sorted by reason; reasons never seen are left out.
    package var byReason: [(reason: String, count: Int)] {
        var all = counts.withLock { $0 }
        if let refused = limit.withLock({ $0?.refused }), refused > 0 { all["connection-limit"] = refused }
        return all.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
