// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport
import Foundation
import Synchronized

/// One request and its final answer through a `ConnectionPool`, with the rules the batch
/// applies to notifications, through the same `AttemptHistory` (signing, counting, judging,
/// the word of earlier attempts) and `APNsSendError(connectFailure:)` (apns-protocol.md §1):
/// 429 and 5xx retried with back-off (or after `retry-after`), a request the server did not
/// process resent at once, one lost with its connection resent on a new connection (and marked
/// possibly duplicated), an expired provider token replaced once, connect failures and outages
/// from the pool. What the channel management API and broadcasts (§8) go through, so they
/// share the pool, the outage handling and the observer with device sends.
///
/// Requests go out one per call; callers wanting several at once call from several tasks
/// (nghttp2 holds back what exceeds the server's MAX_CONCURRENT_STREAMS).
final class PooledExchange: Sendable {
    /// The final answer: `outcome` as a notification's, `response` the 2xx answer itself
    /// (headers and body the caller reads), or the last refusal.
    struct Answer: Sendable {
        var outcome: APNsSendResult.Outcome
        var response: HTTP2Response?
        var attempts: Int
        var possiblyDuplicated: Bool
    }

    let pool: ConnectionPool
    private let policy: APNsRetryPolicy
    private let tokens: ProviderTokenCache?
    /// Spreads calls over the pool's slots.
    private let nextSlot = Locked(0)

    init(pool: ConnectionPool, policy: APNsRetryPolicy, tokens: ProviderTokenCache?) {
        self.pool = pool
        self.policy = policy
        self.tokens = tokens
    }

    /// Sends `request` until it has a final answer. Cancelling the calling task ends it at
    /// once: `.cancelled(written:)` says whether any attempt went out.
    func perform(_ request: HTTP2Request) async -> Answer {
        let slot = nextSlot.withLock { next in
            defer { next = (next + 1) % pool.size }
            return next
        }
        var history = AttemptHistory()
        // Every answer keeps the word of the attempts before it (`AttemptHistory.keepingWord`):
        // "not written" unless one was lost in flight (an answered 429 or 503 was not taken).
        func answer(_ outcome: APNsSendResult.Outcome, _ response: HTTP2Response? = nil) -> Answer {
            Answer(outcome: history.keepingWord(outcome), response: response, attempts: history.attempts,
                   possiblyDuplicated: history.mayHaveBeenDelivered)
        }
        while true {
            if Task.isCancelled { return answer(.cancelled(written: false)) }
            let connection: any ProviderConnection
            do {
                let pool = self.pool
                // The pool keeps a connection that arrives after the cancel: nothing to discard.
                connection = try await Cancellable.run { () async throws -> any ProviderConnection in try await pool.connection(slot: slot) }
            } catch let error as ProviderSendError {
                return answer(.failed(APNsSendError(connectFailure: error)))
            } catch {
                return answer(.cancelled(written: false))
            }
            let attempt: (request: HTTP2Request, bearer: String?)
            do throws(APNsSendError) {
                attempt = try history.nextAttempt(request, tokens: tokens)
            } catch {
                return answer(.failed(error))
            }
            let cancellation = RequestCancellation()
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTP2Response, ProviderSendError>, Never>) in
                    connection.submit(attempt.request, cancellation: cancellation) { continuation.resume(returning: $0) }
                }
            } onCancel: {
                cancellation.cancel()
            }
            if cancellation.isCancelled { return answer(.cancelled(written: cancellation.wasWritten)) }
            let decision = history.judge(result, bearer: attempt.bearer, tokens: tokens, policy: policy)
            // REFUSED_STREAM on a live connection leaves it usable; anything else replaces it.
            if case .failure(let error) = result, error.mayHaveBeenProcessed || !connection.isUsable {
                await pool.discard(connection, slot: slot)
            }
            switch decision {
            case .final(let outcome):
                if case .success(let response) = result { return answer(outcome, response) }
                return answer(outcome)
            case .again:
                continue
            case .after(let seconds):
                do { try await Task.sleep(nanoseconds: TimerSeconds.nanoseconds(seconds)) } catch { return answer(.cancelled(written: false)) }
            }
        }
    }
}
