// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
/// Something `inspect` or `check` noticed about a credential: expired, expiring, key
/// mismatch, not an APNs certificate, malformed topics.
///
/// `code` is stable (scripts match on it, docs/inspect-json.md lists them); `message` is a
/// sentence for people and may change.
package struct Finding: Sendable, Equatable, Codable {
    package enum Severity: String, Sendable, Codable, Comparable {
        case info, warning, error

        private var rank: Int { self == .info ? 0 : self == .warning ? 1 : 2 }
        package static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    package let severity: Severity
    package let code: String
    package let message: String

    package init(_ severity: Severity, _ code: String, _ message: String) {
        self.severity = severity
        self.code = code
        self.message = message
    }
}
