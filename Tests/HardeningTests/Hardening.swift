import Testing
import Foundation

/// The parent of every hardening suite, run one test at a time. These tests are long and
/// blocking (CPU-bound fuzz loops, chains of child processes), and Swift Testing's
/// cooperative pool is only as wide as the machine (2 cores in CI): run side by side they
/// starved the in-process mock gateway of the verify tests into 10-second timeouts.
@Suite(.serialized)
enum Hardening {
    /// Runs blocking work on a thread of its own, leaving the cooperative pool to the suites
    /// that need it. `body` must not record issues itself (its thread has no test context).
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
