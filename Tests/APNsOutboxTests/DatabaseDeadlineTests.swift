// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
@testable import APNsOutbox
import Synchronization
import Testing

/// `withDatabaseDeadline`: the worker's guard against a statement that never ends (CI saw one
/// after a PostgreSQL restart). No database here: calls that answer, fail, or never end at all.
@Suite("The worker's statement deadline", .timeLimit(.minutes(1)))
struct DatabaseDeadlineTests {
    @Test("A call that ends in time gives its value or its error")
    func endsInTime() async throws {
        #expect(try await withDatabaseDeadline(.seconds(30)) { 42 } == 42)
        await #expect(throws: Refused.self) { try await withDatabaseDeadline(.seconds(30)) { () async throws -> Int in throw Refused() } }
    }

    @Test("A call that never ends, not even when cancelled, is given up at the deadline")
    func neverEnds() async throws {
        let stuck = Stuck()
        await #expect(throws: DatabaseCallTimedOut.self) {
            try await withDatabaseDeadline(.milliseconds(200)) { () async throws -> Int in await stuck.wait() }
        }
        #expect(stuck.waiting)
        stuck.release()
    }

    @Test("Cancelling the caller ends the wait at once with CancellationError")
    func callerCancelled() async throws {
        let stuck = Stuck()
        let caller = Task { try await withDatabaseDeadline(.seconds(600)) { () async throws -> Int in await stuck.wait() } }
        while !stuck.waiting { await Task.yield() }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        stuck.release()
    }

    struct Refused: Error {}

    /// A call that ignores cancellation and ends only when released.
    final class Stuck: Sendable {
        private let state = Mutex<(waiting: Bool, continuation: CheckedContinuation<Void, Never>?)>((false, nil))
        var waiting: Bool { state.withLock { $0.waiting } }

        func wait() async -> Int {
            await withCheckedContinuation { continuation in state.withLock { $0 = (true, continuation) } }
            return 0
        }

        func release() { state.withLock { state in defer { state.continuation = nil }; return state.continuation }?.resume() }
    }
}
#endif
