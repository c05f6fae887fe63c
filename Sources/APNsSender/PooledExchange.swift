// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport
import Foundation
import Synchronized

/// One request and its final answer through a `ConnectionPool`, with the rules `BatchRun`
/// applies to notifications (apns-protocol.md §1): 429 and 5xx retried with back-off (or after
/// `retry-after`), a request the server did not process resent at once, one lost with its
/// connection resent on a new connection (and marked possibly duplicated), an expired provider
/// token replaced once, connect failures and outages from the pool. What the channel
/// management API and broadcasts (§8) go through, so they share the pool, the outage handling
/// and the observer with device sends.
///
/// Requests go out one per call; callers wanting several at once call from several tasks
/// (nghttp2 holds back what exceeds the server's MAX_CONCURRENT_STREAMS).
final class PooledExchange: Sendable {
    /// The final answer: `outcome` as a notification's, `response` the 2xx answer itself
    /// (headers and body the caller reads), or the last refusal.
    struct Answer: Sendable {
        var outcome: APNsSendResult.Outcome
        var response: ProviderResponse?
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
    func perform(_ request: ProviderRequest) async -> Answer {
        let slot = nextSlot.withLock { next in
            defer { next = (next + 1) % pool.size }
            return next
        }
        var attempts = 0
        var written = false
        var possiblyDuplicated = false
        var refreshedToken = false
        // Every answer keeps the word of the attempts before it (`afterEarlierAttempt`).
        func answer(_ outcome: APNsSendResult.Outcome, _ response: ProviderResponse? = nil) -> Answer {
            Answer(outcome: outcome.afterEarlierAttempt(mayHaveBeenDelivered: possiblyDuplicated), response: response, attempts: attempts,
                   possiblyDuplicated: possiblyDuplicated)
        }
        while true {
            if Task.isCancelled { return answer(.cancelled(written: written)) }
            let connection: any ProviderConnection
            do {
                let pool = self.pool
                // The pool keeps a connection that arrives after the cancel: nothing to discard.
                connection = try await Cancellable.run { () async throws -> any ProviderConnection in try await pool.connection(slot: slot) }
            } catch let error as ProviderSendError {
                return answer(written ? .failed(APNsSendError(.connectionLost, "Gave up after \(attempts) attempts: \(BatchSender.describe(error))",
                                                              mayHaveBeenDelivered: true))
                                      : .failed(APNsSendError(connectFailure: error)))
            } catch {
                return answer(.cancelled(written: written))
            }
            var sending = request
            let bearer: String?
            do throws(APNsSendError) {
                bearer = try sending.sign(with: tokens)
            } catch {
                return answer(.failed(error))
            }
            attempts += 1
            let cancellation = RequestCancellation()
            let ready = sending
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Result<ProviderResponse, ProviderSendError>, Never>) in
                    connection.submit(ready, cancellation: cancellation) { continuation.resume(returning: $0) }
                }
            } onCancel: {
                cancellation.cancel()
            }
            if cancellation.wasWritten { written = true }
            if cancellation.isCancelled { return answer(.cancelled(written: written)) }
            switch result {
            case .success(let response):
                let decision = RetryDecision.afterAnswer(response, attempts: attempts, policy: policy) {
                    guard let tokens, let bearer, !refreshedToken else { return false }
                    refreshedToken = true
                    return tokens.invalidate(bearer)
                }
                switch decision {
                case .final(let outcome): return answer(outcome, response)
                case .again: continue
                case .after(let seconds):
                    do { try await Task.sleep(nanoseconds: TimerSeconds.nanoseconds(seconds)) } catch { return answer(.cancelled(written: written)) }
                }
            case .failure(let error):
                if error.mayHaveBeenProcessed { possiblyDuplicated = true }
                // REFUSED_STREAM on a live connection leaves it usable; anything else replaces it.
                if possiblyDuplicated || !connection.isUsable { await pool.discard(connection, slot: slot) }
                if case .final(let outcome) = RetryDecision.afterFailure(error, attempts: attempts, policy: policy) { return answer(outcome) }
            }
        }
    }
}

extension APNsSendError {
    /// A connection the pool could not make (or will not: an outage, a closed client).
    init(connectFailure error: ProviderSendError) {
        switch error {
        case .credentialsRejected(let sentence): self.init(.credentialsRejected, "Not sent: \(sentence)")
        case .closed(let sentence): self.init(.clientClosed, sentence)
        default: self.init(.gatewayUnreachable, "Cannot reach the gateway: \(BatchSender.describe(error))")
        }
    }
}
