// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
@testable import APNsSender
import Foundation
import Testing

/// The triage rules without a network: a 410's timestamp against the app's registration time,
/// and the diagnosis' verdict per answer (the `--tokens` line's registration column is CLIFormatsTests').
@Suite("Token triage rules (apns-protocol.md §12)")
struct TokenTriageTests {
    static let token = try! APNsDeviceToken(parsing: String(repeating: "ab", count: 32))
    static let unregistered = Date(timeIntervalSince1970: 1_700_000_000)

    func rejected(_ status: Int, _ reason: APNsReason, _ timestamp: Date? = nil, diagnosis: APNsTokenDiagnosis? = nil) -> APNsSendResult {
        APNsSendResult(index: 0, token: Self.token, apnsIDText: "x", outcome: .rejected(status: status, reason: reason, timestamp: timestamp),
                       attempts: 1, diagnosis: diagnosis)
    }

    @Test("410 with a timestamp: delete only when the app did not register the token again after it")
    func timestampRule() {
        let gone = rejected(410, .unregistered, Self.unregistered)
        #expect(gone.tokenRemoval() == .compareRegistration(unregisteredAt: Self.unregistered))
        #expect(gone.tokenRemoval()?.safeToDelete == nil && gone.invalidatesToken)
        let later = Self.unregistered.addingTimeInterval(1)
        #expect(gone.tokenRemoval(registeredAt: later) == .keepReregistered(registeredAt: later, unregisteredAt: Self.unregistered))
        #expect(gone.tokenRemoval(registeredAt: later)?.safeToDelete == false)
        #expect(gone.tokenRemoval(registeredAt: Self.unregistered) == .remove, "registered at the very time: not after it")
        #expect(rejected(410, .expiredToken).tokenRemoval(registeredAt: later) == .remove, "no timestamp: nothing to compare")
        #expect(rejected(400, .badDeviceToken).tokenRemoval() == .remove)
        #expect(rejected(400, .badTopic).tokenRemoval() == nil && rejected(429, .tooManyRequests).tokenRemoval() == nil)
    }

    @Test("Diagnosis verdicts: 200 or a refusal about the token is the other environment's; BadDeviceToken is neither; the rest tells nothing")
    func verdicts() {
        #expect(APNsTokenDiagnosis.verdict(for: .delivered) == .otherEnvironment)
        #expect(APNsTokenDiagnosis.verdict(for: .rejected(status: 410, reason: .unregistered, timestamp: nil)) == .otherEnvironment)
        #expect(APNsTokenDiagnosis.verdict(for: .rejected(status: 400, reason: .deviceTokenNotForTopic, timestamp: nil)) == .otherEnvironment)
        #expect(APNsTokenDiagnosis.verdict(for: .rejected(status: 400, reason: .badDeviceToken, timestamp: nil)) == .neither)
        #expect(APNsTokenDiagnosis.verdict(for: .rejected(status: 403, reason: .badCertificateEnvironment, timestamp: nil)) == .undetermined)
        #expect(APNsTokenDiagnosis.verdict(for: .cancelled(written: true)) == .undetermined)
        let delivered = APNsTokenDiagnosis(verdict: .otherEnvironment, environment: .production, attempt: .delivered, attemptID: "id")
        #expect(rejected(400, .badDeviceToken, diagnosis: delivered).tokenRemoval() == .keepForOtherEnvironment(.production))
        let gone = APNsTokenDiagnosis(verdict: .otherEnvironment, environment: .production,
                                      attempt: .rejected(status: 410, reason: .unregistered, timestamp: Self.unregistered), attemptID: "id")
        #expect(rejected(400, .badDeviceToken, diagnosis: gone).tokenRemoval() == .compareRegistration(unregisteredAt: Self.unregistered))
        // Delivered in the other environment: a resend may notify twice.
        #expect(delivered.deliveredInOtherEnvironment && rejected(400, .badDeviceToken, diagnosis: delivered).mayHaveBeenDelivered)
    }

    @Test("A BadDeviceToken whose diagnosis told nothing is kept, never safe to delete, the more so when the attempt may have been delivered (and for a repeated line)")
    func undeterminedIsKept() {
        let lost = APNsTokenDiagnosis(verdict: .undetermined, environment: .production,
                                      attempt: .failed(APNsSendError(.connectionLost, "no answer", mayHaveBeenDelivered: true)), attemptID: "id")
        #expect(rejected(400, .badDeviceToken, diagnosis: lost).tokenRemoval() == .keepUndetermined(.production, mayHaveBeenDelivered: true))
        #expect(rejected(400, .badDeviceToken, diagnosis: lost.repeatedCopy).tokenRemoval() == .keepUndetermined(.production, mayHaveBeenDelivered: true))
        let cancelled = APNsTokenDiagnosis(verdict: .undetermined, environment: .production, attempt: .cancelled(written: false), attemptID: nil)
        #expect(rejected(400, .badDeviceToken, diagnosis: cancelled).tokenRemoval() == .keepUndetermined(.production, mayHaveBeenDelivered: false))
        let refused = APNsTokenDiagnosis(verdict: .undetermined, environment: .production,
                                         attempt: .rejected(status: 403, reason: .badCertificateEnvironment, timestamp: nil), attemptID: "id")
        #expect(rejected(400, .badDeviceToken, diagnosis: refused).tokenRemoval()?.safeToDelete == false)
        // Not tried (the limit): as without a diagnosis.
        let notTried = APNsTokenDiagnosis(verdict: .limitReached, environment: .production, attempt: nil, attemptID: nil)
        #expect(rejected(400, .badDeviceToken, diagnosis: notTried).tokenRemoval() == .remove)
    }

    /// Before: a 410 whose timestamp was 1e300 became a Date that `--results` converted to Int (a trap).
    @Test("A gateway's 410 timestamp past any date, negative or not a number is dropped; a real one is kept")
    func gatewayTimestamps() {
        for text in ["1e300", "-1", "1e15", "18446744073709551615", "\"soon\""] {
            let (reason, timestamp) = BatchSender.parseError(Array(#"{"reason":"Unregistered","timestamp":\#(text)}"#.utf8))
            #expect(reason == .unregistered && timestamp == nil, "\(text)")
        }
        #expect(BatchSender.parseError(Array(#"{"reason":"Unregistered","timestamp":1700000000000}"#.utf8)).timestamp == Self.unregistered)
    }

    @Test("The diagnosis client's policy is one attempt: nothing it wrote is sent again")
    func diagnosisPolicy() {
        #expect(APNsRetryPolicy().singleAttempt.maximumAttempts == 1)
        #expect(APNsRetryPolicy(maximumAttempts: 9, baseDelay: .milliseconds(200)).singleAttempt.baseDelay == .milliseconds(200))
    }

}
