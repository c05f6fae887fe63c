// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized

/// Task cancellation for calls that wait on the network: the transport's `connect` and `send`
/// resume only when the peer answers or their timeout fires, and know nothing of tasks. `run`
/// returns the call's result, or throws `CancellationError` as soon as the calling task is
/// cancelled; the call itself goes on in a task of its own until its timeout, and a result
/// that arrives after the cancellation goes to `discard` (to close a connection nobody uses).
enum Cancellable {
    static func run<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T,
                                 discard: @escaping @Sendable (T) -> Void = { _ in }) async throws -> T {
        let once = ResumeOnce<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                once.attach(continuation)
                Task {
                    let result: Result<T, Error>
                    do { result = .success(try await operation()) } catch { result = .failure(error) }
                    if !once.resume(with: result), case .success(let late) = result { discard(late) }
                }
            }
        } onCancel: {
            once.resume(with: .failure(CancellationError()))
        }
    }
}

/// Resumes a continuation exactly once with whichever outcome comes first: the operation's or
/// the cancellation's. An outcome that comes before the continuation is attached (a task
/// cancelled before it started) is kept and delivered on `attach`. The continuation is
/// resumed outside the lock.
private final class ResumeOnce<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, Error>?
        var early: Result<T, Error>?
        var settled = false
    }

    private let state = Locked(State())

    /// What `resume(with:)` decided under the lock.
    private enum Step { case refused, kept, resume(CheckedContinuation<T, Error>) }

    func attach(_ continuation: CheckedContinuation<T, Error>) {
        let early: Result<T, Error>? = state.withLock { state in
            if let early = state.early {
                state.settled = true
                return early
            }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// False when an outcome was already taken (this one is not delivered).
    @discardableResult
    func resume(with result: Result<T, Error>) -> Bool {
        let step: Step = state.withLock { state in
            guard !state.settled, state.early == nil else { return .refused }
            guard let continuation = state.continuation else {
                state.early = result
                return .kept
            }
            state.settled = true
            state.continuation = nil
            return .resume(continuation)
        }
        switch step {
        case .refused: return false
        case .kept: return true
        case .resume(let continuation):
            continuation.resume(with: result)
            return true
        }
    }
}
