// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsTransport
import Foundation
import Synchronized

/// Holds the current provider token and replaces it on schedule. APNs refuses tokens older
/// than an hour (ExpiredProviderToken) and answers TooManyProviderTokenUpdates to a key whose
/// tokens change more often than every 20 minutes (apns-protocol.md §1), so one token serves
/// every request on every connection for `refreshInterval` (40 minutes, inside Apple's 20-60),
/// and even an ExpiredProviderToken answer replaces it only once it is `minimumAge` old.
///
/// `clock` tells the time; tests pass a fake one to cover hours in microseconds.
package final class ProviderTokenCache: Sendable {
    private let signer: APNsTokenSigner
    package let refreshInterval: TimeInterval
    /// Never replace a token younger than this (20 minutes).
    package let minimumAge: TimeInterval
    private let clock: @Sendable () -> Date
    private struct State {
        var current: (token: String, authorization: String, issued: Date)?
        var minted = 0
    }

    private let state = Locked(State())

    package init(signer: APNsTokenSigner, refreshInterval: TimeInterval = 40 * 60, minimumAge: TimeInterval = 20 * 60,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.signer = signer
        self.refreshInterval = refreshInterval
        self.minimumAge = min(minimumAge, refreshInterval)
        self.clock = clock
    }

    /// How many tokens have been minted (tests prove it is not one per request).
    package var mintedCount: Int { state.withLock { $0.minted } }

    /// The token to send now.
    package func token() throws -> String { try authorization().token }

    /// The token to send now and its `authorization` header value (`bearer <token>`), made
    /// once per token: a batch sends the same 200-byte value with every request, and building
    /// it per request cost an allocation and a copy each.
    package func authorization() throws -> (token: String, header: String) {
        let now = clock()
        return try state.withLock { state in
            if let current = state.current, now.timeIntervalSince(current.issued) < refreshInterval { return (current.token, current.authorization) }
            let token = try signer.token(issuedAt: now)
            let header = "bearer " + token
            state.current = (token, header, now)
            state.minted += 1
            return (token, header)
        }
    }

    /// APNs said ExpiredProviderToken for `rejected`: drop it so the next call mints a new one,
    /// unless it is younger than `minimumAge` (then a new one would only earn
    /// TooManyProviderTokenUpdates; the clock is likely wrong). Returns whether the next
    /// `token()` differs from `rejected`, that is whether a retry can help.
    @discardableResult
    package func invalidate(_ rejected: String) -> Bool {
        let now = clock()
        return state.withLock { state in
            guard let current = state.current, current.token == rejected else { return true }
            guard now.timeIntervalSince(current.issued) >= minimumAge else { return false }
            state.current = nil
            return true
        }
    }
}

extension HTTP2Request {
    /// Signs this attempt: with token auth (`tokens`), sets `authorization` to the provider
    /// token's header and returns the token (an ExpiredProviderToken answer names it to
    /// `ProviderTokenCache.invalidate`); with certificates, changes nothing and returns nil.
    /// The one place the batch and the single exchanges sign a request.
    mutating func sign(with tokens: ProviderTokenCache?) throws(APNsSendError) -> String? {
        guard let tokens else { return nil }
        do {
            let (token, header) = try tokens.authorization()
            authorization = header
            return token
        } catch {
            throw APNsSendError(.tokenSigningFailed, "Cannot sign a provider token: \(error)")
        }
    }
}
