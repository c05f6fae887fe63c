// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport
@testable import APNsSender
import Foundation
import Testing

/// The one retry decision the batch and the single exchanges share (issue 32), without a
/// socket or a clock: every rule of apns-protocol.md §1, the back-off formula, the token refresh.
@Suite("RetryDecision: what one attempt's outcome means")
struct RetryDecisionTests {
    let policy = APNsRetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(100), maximumDelay: .seconds(5), outageDelay: .seconds(1), maximumOutageDelay: .seconds(60))

    func answer(_ status: Int, _ reason: String? = nil, retryAfter: String? = nil) -> HTTP2Response {
        HTTP2Response(status: status, headers: retryAfter.map { [(name: "retry-after", value: $0)] } ?? [],
                         body: reason.map { Array(#"{"reason":"\#($0)"}"#.utf8) } ?? [])
    }

    func decide(_ response: HTTP2Response, attempts: Int = 1, refresh: Bool = false) -> (RetryDecision, refreshes: Int) {
        var refreshes = 0
        let decision = RetryDecision.afterAnswer(response, attempts: attempts, policy: policy, jitter: 1) {
            refreshes += 1
            return refresh
        }
        return (decision, refreshes)
    }

    @Test("2xx is delivered; permanent reasons are final at once, with their status and reason")
    func finalAnswers() {
        #expect(decide(answer(200)).0 == .final(.delivered))
        #expect(decide(answer(204)).0 == .final(.delivered), "channel management's 2xx")
        #expect(decide(answer(400, "BadDeviceToken")).0 == .final(.rejected(status: 400, reason: .badDeviceToken, timestamp: nil)))
        #expect(decide(answer(410, "Unregistered")).0 == .final(.rejected(status: 410, reason: .unregistered, timestamp: nil)))
        #expect(decide(answer(403, "ExpiredProviderToken")).refreshes == 1, "asked to refresh")
        #expect(decide(answer(403, "ExpiredProviderToken")).0 == .final(.rejected(status: 403, reason: .expiredProviderToken, timestamp: nil)),
                "no refresh possible: final")
        #expect(decide(answer(403, "ExpiredProviderToken"), refresh: true).0 == .again, "a new token: again at once")
        #expect(decide(answer(400, "BadDeviceToken")).refreshes == 0, "only an expired token asks for a refresh")
    }

    @Test("429 and 5xx back off with the one formula, retry-after first, capped; the last attempt's answer is final")
    func backOff() {
        #expect(decide(answer(429, "TooManyRequests"), attempts: 1).0 == .after(seconds: 0.1))
        #expect(decide(answer(503, "ServiceUnavailable"), attempts: 2).0 == .after(seconds: 0.2))
        #expect(decide(answer(500, "InternalServerError", retryAfter: "2"), attempts: 1).0 == .after(seconds: 2))
        #expect(decide(answer(503, "ServiceUnavailable", retryAfter: "3600"), attempts: 1).0 == .after(seconds: 5), "capped at maximumDelay")
        for bad in ["nan", "-1", "inf", "soon"] {
            #expect(decide(answer(503, "ServiceUnavailable", retryAfter: bad), attempts: 1).0 == .after(seconds: 0.1),
                    "retry-after '\(bad)' is ignored, never trusted into a sleep")
        }
        #expect(decide(answer(502), attempts: 1).0 == .after(seconds: 0.1), "a 5xx without a reason (a proxy's page) is retried")
        #expect(decide(answer(418), attempts: 1).0 == .final(.rejected(status: 418, reason: BatchSender.noReasonGiven, timestamp: nil)))
        #expect(decide(answer(429, "TooManyRequests"), attempts: 3).0 == .final(.rejected(status: 429, reason: .tooManyRequests, timestamp: nil)))
        // The formula the pool's outage back-off uses too.
        #expect(policy.outageBackOff(round: 1, jitter: 1) == 1 && policy.outageBackOff(round: 3, jitter: 1) == 4)
        #expect(policy.outageBackOff(round: 10, jitter: 0.5) == 30 && policy.outageBackOff(round: 1_000, jitter: 1) == 60)
        #expect(APNsRetryPolicy.backOff(first: 0.1, cap: 5, step: 0, jitter: 1) == 0.1, "a step below 1 counts as the first")
    }

    @Test("No answer: again until the attempts run out; then failed, and whether APNs may have it")
    func failures() {
        #expect(RetryDecision.afterFailure(.connectionLost("reset"), attempts: 1, policy: policy) == .again)
        #expect(RetryDecision.afterFailure(.notProcessed("refused"), attempts: 2, policy: policy) == .again)
        guard case .final(.failed(let lost)) = RetryDecision.afterFailure(.connectionLost("reset"), attempts: 3, policy: policy),
              case .final(.failed(let refused)) = RetryDecision.afterFailure(.notProcessed("refused"), attempts: 3, policy: policy) else {
            Issue.record("the last attempt's failure is final")
            return
        }
        #expect(lost.code == .connectionLost && lost.mayHaveBeenDelivered, "lost in flight: APNs may have it")
        #expect(refused.code == .connectionLost && !refused.mayHaveBeenDelivered, "refused every time: APNs never processed it")
    }
}
