// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import Synchronized

/// A database call that did not end within its deadline (`withDatabaseDeadline`).
struct DatabaseCallTimedOut: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "no answer from the database within \(limit)" }
}

/// Runs `call` and returns what it returns, or throws `DatabaseCallTimedOut` once `limit` has
/// passed, whatever `call` is doing then.
///
/// Why not a task group: a group returns only when every child has, so a call that ignores
/// cancellation holds it for ever. One did: CI saw a worker whose statement, sent as PostgreSQL
/// restarted, never ended (no error, no answer, no statement on the server), while the
/// heartbeat's statements on the same pool went on; the worker held its batch's leases and
/// `--until-empty` never ended. Here the call runs in a task of its own; past the deadline that
/// task is cancelled and left to end when it may, and the caller goes on (retrying, or counting a
/// database error). Cancelling the caller cancels the call.
func withDatabaseDeadline<Value: Sendable>(_ limit: Duration,
                                           _ call: @escaping @Sendable () async throws -> Value) async throws -> Value {
    let state = Locked<DeadlineRace<Value>>(DeadlineRace())
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            // Cancelled before it started: the race is over already.
            if let ended = state.withLock({ race -> Result<Value, any Error>? in
                if !race.ended { race.continuation = continuation }
                return race.result
            }) {
                continuation.resume(with: ended)
                return
            }
            let work = Task {
                do { DeadlineRace.finish(state, with: .success(try await call())) } catch {
                    DeadlineRace.finish(state, with: .failure(error))
                }
            }
            let timer = Task {
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                DeadlineRace.finish(state, with: .failure(DatabaseCallTimedOut(limit: limit)))
            }
            let over = state.withLock { race -> Bool in
                race.tasks = [work, timer]
                return race.ended
            }
            if over { work.cancel(); timer.cancel() }
        }
    } onCancel: {
        DeadlineRace.finish(state, with: .failure(CancellationError()))
    }
}

/// What `withDatabaseDeadline`'s call and timer race for: the caller's continuation, resumed by
/// whichever ends first; the other is cancelled.
private struct DeadlineRace<Value: Sendable>: Sendable {
    var continuation: CheckedContinuation<Value, any Error>?
    var tasks: [Task<Void, Never>] = []
    var result: Result<Value, any Error>?
    var ended: Bool { result != nil }

    /// Resumes the caller with `result` unless it was resumed already, and cancels the loser.
    /// Tasks handed in after the race ended (the call ended before they were stored) are
    /// cancelled then.
    static func finish(_ state: Locked<DeadlineRace>, with result: Result<Value, any Error>) {
        let (continuation, tasks) = state.withLock { race -> (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) in
            guard !race.ended else { return (nil, []) }
            race.result = result
            defer { race.continuation = nil }
            return (race.continuation, race.tasks)
        }
        for task in tasks { task.cancel() }
        continuation?.resume(with: result)
    }
}
#endif
