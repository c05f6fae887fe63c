// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsSender
import ArgumentParser

/// `--connections`, `--event-loops` and `--concurrency` of `push` and `outbox run`, checked
/// against the library's own bounds (`APNsClient.Configuration.Pool`), so the CLI and a
/// library client refuse the same values.
enum PoolFlags {
    static func validate(connections: Int, eventLoops: Int, concurrency: Int) throws {
        typealias Pool = APNsClient.Configuration.Pool
        let flags = [("--connections", connections, Pool.connectionsRange), ("--event-loops", eventLoops, Pool.connectionsRange),
                     ("--concurrency", concurrency, Pool.concurrencyRange)]
        for (flag, value, range) in flags where !range.contains(value) {
            throw ValidationError("\(flag) must be between \(range.lowerBound) and \(range.upperBound).")
        }
    }
}
