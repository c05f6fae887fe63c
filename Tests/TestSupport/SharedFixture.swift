// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A fixture made once for a whole test target, on first use, by async code (it runs child
/// processes, which tests await rather than block on). Concurrent first users share the one
/// making; a failure is every user's failure, with its message.
public actor SharedFixture<Value: Sendable> {
    private let make: @Sendable () async throws -> Value
    private var making: Task<Value, Error>?

    public init(_ make: @escaping @Sendable () async throws -> Value) { self.make = make }

    public func get() async throws -> Value {
        if let making { return try await making.value }
        let task = Task { try await make() }
        making = task
        return try await task.value
    }
}

/// Folders removed when the test process exits (shared fixtures live for the whole run).
public enum RemovedAtExit {
    private static let paths = LockedPaths()

    public static func add(_ path: String) {
        if paths.append(path) {
            atexit { for path in RemovedAtExit.paths.all { try? FileManager.default.removeItem(atPath: path) } }
        }
    }

    private final class LockedPaths: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        /// Appends; true for the first path (the one that registers the exit handler).
        func append(_ path: String) -> Bool { lock.lock(); defer { lock.unlock() }; list.append(path); return list.count == 1 }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return list }
    }
}
