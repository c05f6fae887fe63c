// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// Why a certificate was revoked: RFC 5280's CRLReason, as OCSP and CRLs carry it (code 7 is
/// unused in the RFC).
package enum RevocationReason: Int, Sendable, Codable, CaseIterable {
    case unspecified = 0, keyCompromise = 1, caCompromise = 2, affiliationChanged = 3, superseded = 4
    case cessationOfOperation = 5, certificateHold = 6, removeFromCRL = 8, privilegeWithdrawn = 9, aaCompromise = 10

    /// RFC 5280's name (what `openssl ca -crl_reason` takes, and `apnskit mock revoke --reason`).
    package var name: String {
        switch self {
        case .unspecified: return "unspecified"
        case .keyCompromise: return "keyCompromise"
        case .caCompromise: return "CACompromise"
        case .affiliationChanged: return "affiliationChanged"
        case .superseded: return "superseded"
        case .cessationOfOperation: return "cessationOfOperation"
        case .certificateHold: return "certificateHold"
        case .removeFromCRL: return "removeFromCRL"
        case .privilegeWithdrawn: return "privilegeWithdrawn"
        case .aaCompromise: return "AACompromise"
        }
    }

    package init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name.lowercased() == name.lowercased() }) else { return nil }
        self = match
    }
}

/// What asking the issuer about a certificate gave (docs/apns-protocol.md §2, "Revocation").
package struct RevocationCheck: Sendable, Equatable {
    package enum Method: String, Sendable { case ocsp, crl }

    package enum Status: Sendable, Equatable {
        /// The issuer vouches for it now.
        case good
        /// Revoked at `at`, for `reason` when the issuer gave one.
        case revoked(at: Date, reason: RevocationReason?)
        /// The responder does not know the certificate (not issued by it, or not recorded).
        case unknown
        /// The responder or distribution point could not be asked: the sentence says why.
        case unreachable(String)
        /// An answer came but cannot be believed: wrong signer, stale, nonce mismatch, malformed.
        case invalid(String)
        /// Nothing to ask: the certificate names no OCSP responder or CRL, or its issuer is not
        /// at hand.
        case notChecked(String)

        /// The word reports use.
        package var word: String {
            switch self {
            case .good: return "good"
            case .revoked: return "revoked"
            case .unknown: return "unknown"
            case .unreachable: return "unreachable"
            case .invalid: return "invalid"
            case .notChecked: return "not_checked"
            }
        }
    }

    package var status: Status
    package var method: Method?
    /// The responder or CRL asked.
    package var url: String?
    package var thisUpdate: Date?
    package var nextUpdate: Date?

    package init(_ status: Status, method: Method? = nil, url: String? = nil, thisUpdate: Date? = nil, nextUpdate: Date? = nil) {
        self.status = status
        self.method = method
        self.url = url
        self.thisUpdate = thisUpdate
        self.nextUpdate = nextUpdate
    }

    /// One clause for a report line: "revocation: good (OCSP http://..., next update ...)".
    package var summary: String {
        let source = [method.map { $0 == .ocsp ? "OCSP" : "CRL" }, url].compactMap { $0 }.joined(separator: " ")
        switch status {
        case .good:
            return "not revoked (\(source))"
        case .revoked(let at, let reason):
            return "REVOKED on \(Self.day(at))\(reason.map { " (\($0.name))" } ?? "") (\(source)); APNs refuses it in the TLS handshake: make a new certificate in the developer portal"
        case .unknown:
            return "revocation unknown: \(source) does not know this certificate"
        case .unreachable(let why):
            return "revocation not checked: \(why)"
        case .invalid(let why):
            return "revocation answer rejected: \(why)"
        case .notChecked(let why):
            return "revocation not checked: \(why)"
        }
    }

    static func day(_ date: Date) -> String { APNsCertificateInfo.day(date) }
}
