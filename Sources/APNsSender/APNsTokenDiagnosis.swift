// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation

/// What the other environment said of a token this client's gateway answered 400
/// BadDeviceToken (apns-protocol.md §12): most such tokens are not broken but belong to the
/// other environment (a TestFlight or App Store build's token sent to the sandbox, or an
/// Xcode build's token sent to production).
///
/// APNs has no dry run: the only way to ask the other environment about a token is to send the
/// notification there, so an `.otherEnvironment` verdict whose `attempt` is `.delivered` means
/// the notification **was delivered** by the other environment (`deliveredInOtherEnvironment`).
/// That is why the diagnosis is opt-in (`APNsClient.Configuration.tokenDiagnosis`), tries each
/// token at most once per client, and stops after the configured limit.
public struct APNsTokenDiagnosis: Sendable, Equatable {
    /// What the attempt says about the token, which decides whether it may be deleted
    /// (`APNsSendResult.tokenRemoval(registeredAt:)`).
    public enum Verdict: Sendable, Equatable {
        /// The other environment knows the token: the app that registered it was built for that
        /// environment. `attempt` says what it answered (`.delivered`, or a refusal about the
        /// token itself such as 410 Unregistered or DeviceTokenNotForTopic).
        case otherEnvironment
        /// The other environment answered BadDeviceToken too: neither knows the token.
        case neither
        /// The attempt told nothing about the token: no answer came, or the other environment
        /// refused the request for another reason (credentials not valid there, rate limit,
        /// outage). `attempt` says which.
        case undetermined
        /// Not tried: the client's diagnosis limit was used up.
        case limitReached
    }

    /// Whose token it is, as far as the attempt could tell.
    public let verdict: Verdict
    /// The environment tried: the other one (nil when no gateway involved names one).
    public let environment: APNsEnvironment?
    /// The other environment's answer (for a `repeated` token, the earlier attempt's); nil
    /// when the limit was reached.
    public let attempt: APNsSendResult.Outcome?
    /// The `apns-id` of the attempt, when one was sent.
    public let attemptID: String?
    /// An earlier result of this client already tried the same token: this verdict is that
    /// one's, and nothing was sent again (a token is tried once, so no device gets the
    /// notification twice from the diagnosis).
    public let repeated: Bool

    /// A diagnosis as the client makes it; public so that a test double of yours can return one.
    public init(verdict: Verdict, environment: APNsEnvironment?, attempt: APNsSendResult.Outcome?, attemptID: String?, repeated: Bool = false) {
        self.verdict = verdict
        self.environment = environment
        self.attempt = attempt
        self.attemptID = attemptID
        self.repeated = repeated
    }

    /// The other environment accepted this result's notification (200): it was delivered there.
    public var deliveredInOtherEnvironment: Bool { !repeated && attempt == .delivered }

    /// The attempt may have reached a device: delivered, or written and lost. A caller that
    /// resends this notification to the other environment may notify twice.
    public var mayHaveBeenDelivered: Bool { !repeated && attemptMayHaveBeenDelivered }

    /// The attempt (this result's own, or the earlier one a `repeated` copy shares) may have
    /// reached a device there.
    var attemptMayHaveBeenDelivered: Bool {
        switch attempt {
        case .delivered?: return true
        case .failed(let error)?: return error.mayHaveBeenDelivered
        case .cancelled(let written)?: return written
        case .rejected?, nil: return false
        }
    }

    /// The verdict an answer of the other environment gives: 200, or a refusal about the token
    /// itself (it is known there), says the token is that environment's; BadDeviceToken there
    /// too says neither knows it; anything else says nothing about the token.
    static func verdict(for outcome: APNsSendResult.Outcome) -> Verdict {
        switch outcome {
        case .delivered:
            return .otherEnvironment
        case .rejected(_, let reason, _):
            if reason == .badDeviceToken { return .neither }
            return [.unregistered, .expiredToken, .deviceTokenNotForTopic].contains(reason) ? .otherEnvironment : .undetermined
        case .failed, .cancelled:
            return .undetermined
        }
    }

    /// This verdict for a later result with the same token: nothing sent again.
    var repeatedCopy: APNsTokenDiagnosis {
        APNsTokenDiagnosis(verdict: verdict, environment: environment, attempt: attempt, attemptID: attemptID, repeated: true)
    }
}

/// What to do with a token whose notification APNs refused for good (Unregistered,
/// ExpiredToken, BadDeviceToken), after the 410's timestamp and the token diagnosis
/// (apns-protocol.md §12): Apple says to stop sending to such a token unless the device
/// registered it again after the time the 410 gives.
public enum APNsTokenRemoval: Sendable, Equatable {
    /// Delete it: APNs refused the token for good, and nothing says the app registered it
    /// again since.
    case remove
    /// Keep it: the app registered the token again (`registeredAt`) after APNs last knew it
    /// invalid (`unregisteredAt`, the 410's timestamp).
    case keepReregistered(registeredAt: Date, unregisteredAt: Date)
    /// Keep it, for the other environment: the diagnosis found the token valid there (the
    /// notification was delivered there). Send its notifications to that environment.
    case keepForOtherEnvironment(APNsEnvironment?)
    /// Keep it: APNs answered BadDeviceToken, and the diagnosis told nothing about the token
    /// (no answer in time, a refusal about the request, or stopped by a signal), so it may be
    /// the other environment's. With `mayHaveBeenDelivered` the attempt was written and lost:
    /// the other environment may have delivered the notification. Never delete such a token
    /// on this run's word; a later run (or your own records) can tell.
    case keepUndetermined(APNsEnvironment?, mayHaveBeenDelivered: Bool)
    /// APNs answered 410 with `unregisteredAt`, and the caller gave no registration time:
    /// delete the token only if the app last registered it before `unregisteredAt`.
    case compareRegistration(unregisteredAt: Date)

    /// True: delete; false: keep; nil: compare with your own registration time first.
    public var safeToDelete: Bool? {
        switch self {
        case .remove: return true
        case .keepReregistered, .keepForOtherEnvironment, .keepUndetermined: return false
        case .compareRegistration: return nil
        }
    }
}

extension APNsSendResult {
    /// What to do with this result's token, given when the app last registered it (nil: not
    /// known); nil when APNs did not refuse the token for good (keep sending). The rule,
    /// apns-protocol.md §12: a 410 whose timestamp is older than the registration is not a
    /// reason to delete; a BadDeviceToken the other environment accepted is that environment's
    /// token; a 410 from the other environment is judged by its own timestamp; a BadDeviceToken
    /// whose diagnosis told nothing (or may have delivered it there) is kept.
    public func tokenRemoval(registeredAt: Date? = nil) -> APNsTokenRemoval? {
        guard case .rejected(_, let reason, let timestamp) = outcome, reason.invalidatesToken else { return nil }
        if reason == .badDeviceToken, let diagnosis, diagnosis.verdict == .undetermined {
            return .keepUndetermined(diagnosis.environment, mayHaveBeenDelivered: diagnosis.attemptMayHaveBeenDelivered)
        }
        if reason == .badDeviceToken, let diagnosis, diagnosis.verdict == .otherEnvironment, let attempt = diagnosis.attempt {
            switch attempt {
            case .delivered: return .keepForOtherEnvironment(diagnosis.environment)
            case .rejected(_, let otherReason, let otherTimestamp) where otherReason == .unregistered || otherReason == .expiredToken:
                return Self.removal(unregisteredAt: otherTimestamp, registeredAt: registeredAt)
            default: return .remove
            }
        }
        return Self.removal(unregisteredAt: reason == .badDeviceToken ? nil : timestamp, registeredAt: registeredAt)
    }

    private static func removal(unregisteredAt: Date?, registeredAt: Date?) -> APNsTokenRemoval {
        guard let unregisteredAt else { return .remove }
        guard let registeredAt else { return .compareRegistration(unregisteredAt: unregisteredAt) }
        return registeredAt > unregisteredAt ? .keepReregistered(registeredAt: registeredAt, unregisteredAt: unregisteredAt) : .remove
    }
}
