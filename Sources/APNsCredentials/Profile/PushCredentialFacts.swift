// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import APNsProtocol
import Foundation

/// What a profile is cross-checked against: the push credential a server sends with.
package struct PushCredentialFacts: Sendable {
    package enum Kind: String, Sendable {
        /// A push certificate (bound to one bundle id, one team, its environments).
        case certificate
        /// A `.p8` token-auth key: every app of its team, both environments. The file does not
        /// carry the team, so only the profile's own push entitlement can be checked against it.
        case authKey
    }

    package let path: String
    package let kind: Kind
    package let bundleID: String?
    package let teamID: String?
    package let environments: [APNsEnvironment]
    /// `development`, `production`, `universal`, ... for certificates.
    package let certificateType: APNsCertificateType?

    /// The facts of an inspected file, or nil when it is not a push credential.
    package init?(_ report: CredentialReport) {
        path = report.path
        if let leaf = report.leaf, leaf.isAPNs, !leaf.isCA {
            kind = .certificate
            bundleID = leaf.bundleID
            teamID = leaf.teamID
            environments = leaf.environments
            certificateType = leaf.type
        } else if report.kind == .authKey, report.authKey?.usable == true {
            kind = .authKey
            bundleID = nil
            teamID = nil
            environments = APNsEnvironment.allCases
            certificateType = nil
        } else {
            return nil
        }
    }

    /// "push certificate apns-dev.pem (development, com.example.app)", ".p8 key AuthKey_X.p8".
    var label: String {
        switch kind {
        case .certificate: return "push certificate \(displayName(path)) (\(certificateType?.rawValue ?? "?"), \(bundleID ?? "no bundle id"))"
        case .authKey: return "token key \(displayName(path))"
        }
    }
}
