// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport
import Foundation
import Synchronized

extension APNsClient.Configuration {
    /// Opt-in token diagnosis (apns-protocol.md §12): a notification answered 400
    /// BadDeviceToken is sent once more, with the same credentials, to the other environment's
    /// gateway, and its result says which environment knows the token
    /// (`APNsSendResult.diagnosis`).
    ///
    /// APNs has no dry run: where the other environment knows the token, **the notification is
    /// delivered there**. Each token is tried at most once per client, and at most `limit`
    /// tokens over the client's life; later BadDeviceToken results say `.limitReached`.
    public struct TokenDiagnosis: Sendable, Hashable {
        /// `push --diagnose-limit`'s default: enough to tell a misfiled batch from a few stray
        /// tokens, few enough that a batch of another environment's tokens does not turn into
        /// a second batch delivered there.
        public static let defaultLimit = 100

        /// The other environment's gateway. Nil: Apple's gateway of the other environment
        /// (production for `.sandbox`, sandbox for `.production`), on the same port; a
        /// `.custom` gateway (a mock) has no other unless one is named here, and its results
        /// then say `.undetermined` with an `invalidConfiguration` error.
        public var gateway: Gateway?
        /// Tokens tried at most over the client's life.
        public var limit: Int

        /// Diagnosis against Apple's other gateway (or `gateway`), for at most `limit` tokens.
        public init(gateway: Gateway? = nil, limit: Int = TokenDiagnosis.defaultLimit) {
            self.gateway = gateway
            self.limit = limit
        }
    }

    /// `tokenDiagnosis` in the transport's terms (nil when off): the other environment's
    /// gateway (named, or Apple's other one for Apple's gateways), and which environment it is.
    var diagnosisTarget: TokenDiagnoser.Target? {
        guard let tokenDiagnosis else { return nil }
        // Apple's gateways know their other environment's gateway (on the same port); a
        // custom one (a mock) has none unless it is named.
        let other = tokenDiagnosis.gateway ?? gateway.environment.flatMap { gateway.isApple ? .apple($0.other, port: gateway.applePort) : nil }
        let otherEnvironment = other?.environment ?? environment?.other
        return TokenDiagnoser.Target(endpoint: other?.providerEndpoint(proxy: proxy), environment: otherEnvironment,
                                     limit: tokenDiagnosis.limit)
    }
}

extension APNsEnvironment {
    /// The environment a token of this one is not valid in.
    public var other: APNsEnvironment { self == .sandbox ? .production : .sandbox }
}

/// Tries BadDeviceToken notifications against the other environment (the client's
/// `Configuration.tokenDiagnosis`): once per token, at most `limit` tokens. Holds at most
/// `limit` tokens (the ones tried), so its memory is bounded with the limit.
package final class TokenDiagnoser: Sendable {
    /// A client for the other environment's gateway; nil when there is none to name.
    private let client: APNsClient?
    /// The environment tried, for the verdict's `environment`.
    private let environment: APNsEnvironment?
    private let limit: Int
    /// Tokens tried, with the attempt (running or done) each got.
    private let tried = Locked<[APNsDeviceToken: Task<APNsTokenDiagnosis, Never>]>([:])

    /// Where a client's diagnosis goes, in the transport's terms: the other environment's
    /// endpoint (nil: none to name), that environment, and the limit.
    package struct Target: Sendable {
        package var endpoint: Endpoint?
        package var environment: APNsEnvironment?
        package var limit: Int
        package init(endpoint: Endpoint?, environment: APNsEnvironment?, limit: Int) {
            self.endpoint = endpoint
            self.environment = environment
            self.limit = limit
        }
    }

    package init(client: APNsClient?, environment: APNsEnvironment?, limit: Int) {
        self.client = client
        self.environment = environment
        self.limit = max(0, limit)
    }

    /// Only a 400 BadDeviceToken says "maybe the other environment's token" (§12).
    func wants(_ result: APNsSendResult) -> Bool {
        if case .rejected(_, let reason, _) = result.outcome, reason == .badDeviceToken { return result.diagnosis == nil }
        return false
    }

    /// The other environment's verdict on `notification`'s token: sent there now, or the
    /// earlier attempt's for a token already tried, or `.limitReached`.
    func diagnose(_ notification: APNsNotification) async -> APNsTokenDiagnosis {
        let environment = self.environment
        let client = self.client
        let (task, repeated): (Task<APNsTokenDiagnosis, Never>?, Bool) = tried.withLock { tried in
            if let earlier = tried[notification.token] { return (earlier, true) }
            guard tried.count < limit else { return (nil, false) }
            let attempt = Task {
                guard let client else {
                    let error = APNsSendError(.invalidConfiguration, "No gateway of the other environment to try the token on: name one in Configuration.tokenDiagnosis.gateway (a custom gateway has none).")
                    return APNsTokenDiagnosis(verdict: .undetermined, environment: environment, attempt: .failed(error), attemptID: nil)
                }
                var other = notification
                other.apnsID = nil
                let result = await client.send(other)
                return APNsTokenDiagnosis(verdict: APNsTokenDiagnosis.verdict(for: result.outcome), environment: environment,
                                          attempt: result.outcome, attemptID: result.apnsIDText)
            }
            tried[notification.token] = attempt
            return (attempt, false)
        }
        guard let task else { return APNsTokenDiagnosis(verdict: .limitReached, environment: environment, attempt: nil, attemptID: nil) }
        let diagnosis = await task.value
        return repeated ? diagnosis.repeatedCopy : diagnosis
    }

    /// Closes the other environment's client (`APNsClient.close`).
    func close(cancellingInFlight: Bool) async { await client?.close(cancellingInFlight: cancellingInFlight) }
}
