// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation

/// The one final result every notification ends with. Its word is a promise: `.delivered`
/// means APNs accepted it, `.cancelled(written: false)` that APNs never had all of it, so
/// cannot have processed it.
public struct APNsSendResult: Sendable, Equatable {
    /// How the notification ended: the four words every result is one of, each a promise about
    /// what APNs has.
    public enum Outcome: Sendable, Equatable {
        /// APNs answered 200.
        case delivered
        /// APNs answered with an error that retrying will not fix (or retries ran out on a
        /// retryable one: these are the last answer). `timestamp` is the 410 answer's: when
        /// APNs learned the token was no longer valid.
        case rejected(status: Int, reason: APNsReason, timestamp: Date?)
        /// No answer could be had; the error says why and whether APNs may have it.
        case failed(APNsSendError)
        /// The caller's task was cancelled (or the batch stopped) before an answer came.
        /// `written: false`: it was never written whole to the connection (at most its headers
        /// went out, then its stream was reset), APNs cannot have processed it, and sending it
        /// again is safe. `written: true`: it went out, so APNs may deliver it.
        case cancelled(written: Bool)
    }

    /// Position in the input (0-based), to tie results to lines.
    public let index: Int
    /// The token the notification was sent to, to update your token store with.
    public let token: APNsDeviceToken
    /// The `apns-id` sent (canonical lower-case text): the `apnsID` UUID as APNs logs it.
    public let apnsIDText: String
    /// `apns-unique-id` (sandbox only), as text.
    public let uniqueIDText: String?
    /// How it ended.
    public let outcome: Outcome
    /// Times it was handed to a connection, retries included: 0 means it never reached one.
    public let attempts: Int
    /// The request was in flight on a connection that died, and was sent again: APNs may have
    /// delivered it twice.
    public let possiblyDuplicated: Bool
    /// With `Configuration.tokenDiagnosis`, for a 400 BadDeviceToken: what the other
    /// environment said of the token (its `attempt` may have DELIVERED the notification there).
    /// Nil otherwise.
    public let diagnosis: APNsTokenDiagnosis?

    /// A result as the client makes it; public so that a test double of yours can return one.
    public init(index: Int, token: APNsDeviceToken, apnsIDText: String, uniqueIDText: String? = nil, outcome: Outcome,
                attempts: Int, possiblyDuplicated: Bool = false, diagnosis: APNsTokenDiagnosis? = nil) {
        self.index = index
        self.token = token
        self.apnsIDText = apnsIDText
        self.uniqueIDText = uniqueIDText
        self.outcome = outcome
        self.attempts = attempts
        self.possiblyDuplicated = possiblyDuplicated
        self.diagnosis = diagnosis
    }

    /// This result with `diagnosis` attached.
    func with(_ diagnosis: APNsTokenDiagnosis) -> APNsSendResult {
        APNsSendResult(index: index, token: token, apnsIDText: apnsIDText, uniqueIDText: uniqueIDText, outcome: outcome,
                       attempts: attempts, possiblyDuplicated: possiblyDuplicated, diagnosis: diagnosis)
    }

    /// The `apns-id` (nil only for legacy-protocol results, which have none).
    public var apnsID: UUID? { UUID(uuidString: apnsIDText) }
    /// `apns-unique-id`, which the sandbox adds to its answers (for the Push Notifications Console).
    public var uniqueID: UUID? { uniqueIDText.flatMap(UUID.init(uuidString:)) }

    /// APNs accepted it (status 200).
    public var isDelivered: Bool { outcome == .delivered }

    /// False only when APNs certainly does not have it: rejected (and not delivered by the
    /// token diagnosis in the other environment), never written, or failed before any attempt
    /// went out. A caller may resend exactly those without notifying twice.
    public var mayHaveBeenDelivered: Bool {
        switch outcome {
        case .delivered: return true
        // A rejection answers the last attempt only: an earlier one lost in flight may have
        // been delivered (`possiblyDuplicated`), as may the other environment's diagnosis.
        case .rejected: return possiblyDuplicated || (diagnosis?.mayHaveBeenDelivered ?? false)
        case .failed(let error): return error.mayHaveBeenDelivered
        case .cancelled(let written): return written
        }
    }

    /// The reason of a rejection.
    public var reason: APNsReason? {
        if case .rejected(_, let reason, _) = outcome { return reason }
        return nil
    }

    /// True when the token should be removed from the provider's database as far as this
    /// result knows: APNs refused it for good, and the token diagnosis did not find it valid in
    /// the other environment. `tokenRemoval(registeredAt:)` also weighs a 410's timestamp
    /// against the app's last registration.
    public var invalidatesToken: Bool { tokenRemoval().map { $0.safeToDelete != false } ?? false }

    /// Milliseconds since 1970, as APNs writes a 410's `timestamp`.
    package static func milliseconds(_ date: Date) -> Int { Int((date.timeIntervalSince1970 * 1000).rounded()) }
}

extension APNsSendResult.Outcome {
    /// This outcome of a notification's last attempt, with the word of the earlier ones kept:
    /// when one of them may have reached APNs (`earlier`), a failure or a cancel that came
    /// after never says "not sent" (`APNsSendError.mayHaveBeenDelivered`, `written`).
    func afterEarlierAttempt(mayHaveBeenDelivered earlier: Bool) -> Self {
        guard earlier else { return self }
        switch self {
        case .failed(let error) where !error.mayHaveBeenDelivered:
            return .failed(APNsSendError(error.code, error.description + " An earlier attempt was lost in flight: APNs may have it.",
                                         mayHaveBeenDelivered: true, status: error.status, reason: error.reason))
        case .cancelled(written: false):
            return .cancelled(written: true)
        default:
            return self
        }
    }
}

/// Totals for a batch.
public struct APNsBatchSummary: Sendable, Equatable {
    /// Every notification taken from the input: each has exactly one result.
    public var total = 0
    /// Answered 200.
    public var delivered = 0
    /// Refused by APNs with a reason (final, or retries ran out).
    public var rejected = 0
    /// Ended without an answer: failed or cancelled.
    public var failed = 0
    /// Notifications ended by cancellation after they were written (also counted in `failed`):
    /// APNs may have them.
    public var cancelled = 0
    /// Notifications ended before they were written (cancelled, or the batch was stopped):
    /// APNs never saw them. Also counted in `failed`.
    public var notSent = 0
    /// Notifications resent after a connection died with them in flight.
    public var possiblyDuplicated = 0
    /// Token diagnosis (`Configuration.tokenDiagnosis`): BadDeviceToken notifications sent to
    /// the other environment (repeats of a token and those past the limit are not counted).
    public var diagnosed = 0
    /// Of the rejected, those whose token the other environment knows (its verdict
    /// `.otherEnvironment`).
    public var otherEnvironmentTokens = 0
    /// Of those, the notifications the other environment DELIVERED (the diagnosis' attempt
    /// was answered 200).
    public var deliveredInOtherEnvironment = 0
    /// BadDeviceToken results not tried because the diagnosis limit was used up.
    public var diagnosisLimitReached = 0
    /// Attempts beyond each notification's first: the price of 429s, 5xx and lost connections.
    public var retries = 0
    /// Connect attempts beyond each connection's first: the lost connections, GOAWAYs and outages
    /// the batch lived through.
    public var reconnects = 0
    /// Set when the gateway could not be reached at all: the `ConnectionFailure` sentence.
    public var connectionFailure: String?
    /// The gateway refused the credentials in the TLS handshake (`connectionFailure` says how):
    /// a credentials problem, not a network one.
    public var credentialsRejected = false

    /// All counts at zero: a summary the batch fills in.
    public init() {}

    mutating func record(_ result: APNsSendResult) {
        total += 1
        switch result.outcome {
        case .delivered: delivered += 1
        case .rejected: rejected += 1
        case .failed: failed += 1
        case .cancelled(let written):
            failed += 1
            if written { cancelled += 1 } else { notSent += 1 }
        }
        if result.possiblyDuplicated { possiblyDuplicated += 1 }
        retries += max(0, result.attempts - 1)
    }

    /// A rejected result's token diagnosis, counted apart from `record`: the result is counted
    /// when its answer comes, its diagnosis when the other environment's does.
    mutating func recordDiagnosis(_ diagnosis: APNsTokenDiagnosis) {
        if diagnosis.attemptID != nil && !diagnosis.repeated { diagnosed += 1 }
        if diagnosis.verdict == .otherEnvironment { otherEnvironmentTokens += 1 }
        if diagnosis.deliveredInOtherEnvironment { deliveredInOtherEnvironment += 1 }
        if diagnosis.verdict == .limitReached { diagnosisLimitReached += 1 }
    }

    /// Adds the totals of another run of the same batch (one run per event loop). The pool's
    /// figures (`reconnects`, `connectionFailure`, `credentialsRejected`) are the batch's
    /// already in each run's summary: kept, not added.
    mutating func add(_ other: APNsBatchSummary) {
        let counts: [WritableKeyPath<APNsBatchSummary, Int>] = [
            \.total, \.delivered, \.rejected, \.failed, \.cancelled, \.notSent, \.possiblyDuplicated, \.diagnosed,
            \.otherEnvironmentTokens, \.deliveredInOtherEnvironment, \.diagnosisLimitReached, \.retries,
        ]
        for count in counts { self[keyPath: count] += other[keyPath: count] }
        reconnects = max(reconnects, other.reconnects)
        connectionFailure = connectionFailure ?? other.connectionFailure
        credentialsRejected = credentialsRejected || other.credentialsRejected
    }
}
