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
        func answer(_ outcome: APNsSendResult.Outcome, _ response: ProviderResponse? = nil) -> Answer {
            Answer(outcome: outcome, response: response, attempts: attempts, possiblyDuplicated: possiblyDuplicated)
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
            var bearer: String?
            if let tokens {
                do {
                    let (token, header) = try tokens.authorization()
                    bearer = token
                    sending.authorization = header
                } catch {
                    return answer(.failed(APNsSendError(.tokenSigningFailed, "Cannot sign a provider token: \(error)")))
                }
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
            case .success(let response) where (200..<300).contains(response.status):
                return answer(.delivered, response)
            case .success(let response):
                let (reason, timestamp) = BatchSender.parseError(response.body)
                if reason == .expiredProviderToken, let tokens, let bearer, !refreshedToken {
                    refreshedToken = true
                    if tokens.invalidate(bearer) { continue }
                }
                let retryable = reason.isDocumented ? reason.isRetryable : response.status >= 500
                guard retryable && attempts < policy.maximumAttempts else {
                    return answer(.rejected(status: response.status, reason: reason, timestamp: timestamp), response)
                }
                let retryAfter = response.header("retry-after").flatMap(Double.init)
                let seconds = min(policy.maximumDelay, retryAfter ?? policy.delay(afterAttempt: attempts))
                do { try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) } catch { return answer(.cancelled(written: written)) }
            case .failure(let error):
                if case .connectionLost = error { possiblyDuplicated = true }
                // REFUSED_STREAM on a live connection leaves it usable; anything else replaces it.
                if possiblyDuplicated || !connection.isUsable { await pool.discard(connection, slot: slot) }
                guard attempts < policy.maximumAttempts else {
                    return answer(.failed(APNsSendError(.connectionLost, "Gave up after \(attempts) attempts: \(BatchSender.describe(error))",
                                                        mayHaveBeenDelivered: possiblyDuplicated)))
                }
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
