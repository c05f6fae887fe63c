// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport
import Foundation

/// What one attempt's outcome means for its request (apns-protocol.md §1), decided in one place
/// for the batch (`BatchRunStateMachine`) and the single exchanges (`PooledExchange`), which
/// both ask through `AttemptHistory.judge`:
/// - a 2xx answer is final (delivered);
/// - ExpiredProviderToken: once per request, with a new provider token, at once;
/// - 429 and 5xx (the documented retryable reasons, or any 5xx without a documented reason):
///   again after a back-off (`retry-after` when APNs gave one, capped at `maximumDelay`);
/// - any other answer is final (rejected);
/// - no answer (the connection died, the request timed out, the stream was refused): again at
///   once, on a usable connection (the caller replaces a dead one);
/// - after `maximumAttempts`, the last answer or failure is final.
///
/// Pure: no clock, no socket; the token refresh is the caller's closure, the jitter a
/// parameter. The caller carries the decision out (sleeps, reconnects), so every rule is tested
/// without a network or a timer (`RetryDecisionTests`).
enum RetryDecision: Equatable, Sendable {
    /// The request's last word.
    case final(APNsSendResult.Outcome)
    /// Send again now.
    case again
    /// Send again after this many seconds.
    case after(seconds: Double)

    /// The decision after APNs answered attempt number `attempts`. `refreshToken` is called
    /// at most once, for ExpiredProviderToken: it replaces the provider token and says whether
    /// a retry can help (false without token auth, after an earlier refresh, or when the cache
    /// keeps the token).
    /// `jitter`: the back-off's factor (tests fix it); nil draws one only when a back-off
    /// follows, so a delivered notification costs no random number (a `getrandom` system call
    /// on Linux, one per answer before).
    static func afterAnswer(_ response: HTTP2Response, attempts: Int, policy: APNsRetryPolicy,
                            jitter: Double? = nil, refreshToken: () -> Bool) -> RetryDecision {
        if (200..<300).contains(response.status) { return .final(.delivered) }
        let (reason, timestamp) = BatchSender.parseError(response.body)
        if reason == .expiredProviderToken, refreshToken() { return .again }
        let retryable = reason.isDocumented ? reason.isRetryable : response.status >= 500
        guard retryable && attempts < policy.maximumAttempts else {
            return .final(.rejected(status: response.status, reason: reason, timestamp: timestamp))
        }
        let retryAfter = response.header("retry-after").flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        return .after(seconds: min(policy.maximumDelay.seconds, retryAfter ?? policy.delay(afterAttempt: attempts, jitter: jitter ?? APNsRetryPolicy.randomJitter())))
    }

    /// The decision after attempt number `attempts` got no answer.
    static func afterFailure(_ error: ProviderSendError, attempts: Int, policy: APNsRetryPolicy) -> RetryDecision {
        guard attempts < policy.maximumAttempts else {
            return .final(.failed(APNsSendError(.connectionLost, "Gave up after \(attempts) attempts: \(BatchSender.describe(error))",
                                                mayHaveBeenDelivered: error.mayHaveBeenProcessed)))
        }
        return .again
    }
}

extension ProviderSendError {
    /// The request may have reached APNs: it was lost in flight (not refused, not unsent).
    var mayHaveBeenProcessed: Bool {
        if case .connectionLost = self { return true }
        return false
    }
}

extension APNsSendError {
    /// What a request ends with when the pool could not make a connection (or will not: an
    /// outage, a closed client), for the batch and the single exchanges alike; an earlier
    /// attempt lost in flight adds its word (`AttemptHistory.keepingWord`).
    init(connectFailure error: ProviderSendError) {
        switch error {
        case .credentialsRejected(let sentence): self.init(.credentialsRejected, "Not sent: \(sentence)")
        case .closed(let sentence): self.init(.clientClosed, sentence)
        default: self.init(.gatewayUnreachable, "Cannot reach the gateway: \(BatchSender.describe(error))")
        }
    }
}
