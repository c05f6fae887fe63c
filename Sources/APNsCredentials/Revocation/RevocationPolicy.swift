// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// What `check --revocation` does with the answer: revoked always fails; what could not be
/// answered (unreachable, unusable, unknown, nothing to ask) is a warning, or a failure when
/// the check is required (`--revocation-required`, also spelled `--revocation=require`).
package struct RevocationPolicy: Sendable {
    package var checker: RevocationChecker
    package var required: Bool

    package init(checker: RevocationChecker = RevocationChecker(), required: Bool = false) {
        self.checker = checker
        self.required = required
    }

    package struct Outcome: Sendable {
        package var failures: [String] = []
        package var warnings: [String] = []
        package var record: RevocationRecord
        /// The failures are there because the check is required.
        package var required = false
    }

    /// Asks about `certificate`, its issuer looked up among `candidates` (the file's chain and
    /// the CA bundle).
    package func judge(_ certificate: Certificate, among candidates: [Certificate], now: Date) -> Outcome {
        let check = checker.check(certificate, issuer: RevocationChecker.issuer(of: certificate, among: candidates), now: now)
        var outcome = Outcome(record: RevocationRecord(check))
        switch check.status {
        case .good:
            break
        case .revoked:
            outcome.failures.append(check.summary)
        case .unknown, .unreachable, .invalid, .notChecked:
            if required {
                outcome.failures.append(check.summary)
                outcome.required = true
            } else {
                outcome.warnings.append(check.summary)
            }
        }
        return outcome
    }
}

/// A revocation answer as reports carry it (`check --format json`, `verify --format json`).
package struct RevocationRecord: Sendable, Codable, Equatable {
    /// good, revoked, unknown, unreachable, invalid or not_checked.
    package let status: String
    /// ocsp or crl.
    package let method: String?
    package let url: String?
    package let revokedAt: Date?
    /// RFC 5280's reason name.
    package let reason: String?
    package let thisUpdate: Date?
    package let nextUpdate: Date?
    /// The sentence reports show.
    package let detail: String

    package init(_ check: RevocationCheck) {
        status = check.status.word
        method = check.method?.rawValue
        url = check.url
        if case .revoked(let at, let why) = check.status {
            revokedAt = at
            reason = why?.name
        } else {
            revokedAt = nil
            reason = nil
        }
        thisUpdate = check.thisUpdate
        nextUpdate = check.nextUpdate
        detail = check.summary
    }

    /// `2026-11-25`, the day reports name.
    package static func day(_ date: Date) -> String { APNsCertificateInfo.day(date) }
}
