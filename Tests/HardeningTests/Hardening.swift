// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Testing
import Foundation

/// The parent of every hardening suite. Its tests run in parallel with each other and with the
/// other targets: child processes are awaited (TestSupport), and CPU-bound loops in this process
/// (the fuzz pass, the 1 GB line) run on a thread of their own (`offPool`), so none of them holds
/// a thread of Swift Testing's cooperative pool, which is only as wide as the machine.
@Suite
enum Hardening {
    /// Runs blocking work on a thread of its own, leaving the cooperative pool to the suites
    /// that need it. `body` must not record issues itself (its thread has no test context).
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
