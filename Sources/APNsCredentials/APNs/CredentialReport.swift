// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// What `apnskit inspect` found in one file; its JSON encoding is the documented
/// `inspect --format json` schema (docs/inspect-json.md). Optional fields are omitted when
/// they do not apply.
package struct CredentialReport: Sendable, Codable {
    /// What the file is, as a stable word for scripts.
    package enum Kind: String, Sendable, Codable {
        case certificate, certificateChain, combinedPEM, pkcs12, privateKey, authKey, certificateRequest, provisioningProfile, other, unreadable
    }

    package struct KeyInfo: Sendable, Codable {
        package let algorithm: String
        package let bits: Int
        /// `RSA-2048`, `EC P-256`.
        package let summary: String
        /// Whether the file stored it encrypted.
        package let encrypted: Bool
        /// Whether it is the key of the file's leaf certificate; omitted with no certificate.
        package let matchesCertificate: Bool?
        /// Index in `certificates` of the certificate this key belongs to; omitted when none.
        package let certificateIndex: Int?
        package let friendlyName: String?
        /// localKeyId as lower-case hex.
        package let localKeyID: String?
    }

    /// One key + certificate pair (an identity a TLS client can present), as `p12 split
    /// --identity` and `prepare --identity` number them.
    package struct IdentityInfo: Sendable, Codable {
        package let number: Int
        package let friendlyName: String?
        /// localKeyId as lower-case hex.
        package let localKeyID: String?
        package let subject: String
        package let commonName: String?
        package let certificateIndex: Int
        package let keyIndex: Int
    }

    package struct RequestInfo: Sendable, Codable {
        package let subject: String
        package let keySummary: String
        package let signatureValid: Bool
        /// Whether the private key (in the file or from `--key`) is the request's; omitted without one.
        package let matchesKey: Bool?
    }

    /// A token-auth signing key, `AuthKey_<KEYID>.p8` (PKCS#8, EC P-256).
    package struct AuthKeyInfo: Sendable, Codable {
        /// The 10-character key id from the file name; omitted when the name does not carry one.
        package let keyID: String?
        package let curve: String
        /// Whether it is usable for APNs token auth (EC P-256).
        package let usable: Bool
    }

    package let path: String
    package let kind: Kind
    /// One line a person reads first: "combined PEM: certificate + matching RSA-2048 key".
    package let summary: String
    /// `pem`, `der` or `pkcs12`; omitted when unreadable.
    package let encoding: String?
    /// Index in `certificates` of the leaf (the certificate the rest is about); omitted with none.
    package let leafIndex: Int?
    package let certificates: [APNsCertificateInfo]
    package let privateKeys: [KeyInfo]
    /// Every key + certificate pair in the file (empty when there is none).
    package let identities: [IdentityInfo]
    package let requests: [RequestInfo]
    package let authKey: AuthKeyInfo?
    /// Findings about the file as a whole (each certificate has its own, too).
    package let findings: [Finding]
    /// Why the file could not be read; only for `unreadable`.
    package let error: String?
    /// `APNsCredentialError.Kind` of `error`: unreadable, wrongPassphrase, missingPassphrase, ...
    package let errorKind: String?
    /// Only for `provisioningProfile`: what the profile says (docs/inspect-json.md).
    package internal(set) var profile: ProvisioningProfileInfo? = nil

    /// The leaf certificate's facts, if there is one.
    package var leaf: APNsCertificateInfo? { leafIndex.map { certificates[$0] } }

    /// Every finding: the file's, then each certificate's.
    package var allFindings: [Finding] { findings + certificates.flatMap(\.findings) }

    /// Every finding with the certificate it is about: nil for the file's own findings, and
    /// the certificate's name when the file holds more than one (else the same "expired" line
    /// could be about any of them).
    package var attributedFindings: [(about: String?, finding: Finding)] {
        let named = certificates.count > 1
        return findings.map { (nil, $0) } + certificates.flatMap { info in
            info.findings.map { (named ? info.displayName : nil, $0) }
        }
    }

    /// The most severe finding, or nil when there are none.
    package var worstSeverity: Finding.Severity? { allFindings.map(\.severity).max() }

    init(path: String, kind: Kind, summary: String, encoding: String?, leafIndex: Int?, certificates: [APNsCertificateInfo],
         privateKeys: [KeyInfo], identities: [IdentityInfo] = [], requests: [RequestInfo], authKey: AuthKeyInfo?, findings: [Finding],
         error: String? = nil, errorKind: String? = nil) {
        self.path = path
        self.kind = kind
        self.summary = summary
        self.encoding = encoding
        self.leafIndex = leafIndex
        self.certificates = certificates
        self.privateKeys = privateKeys
        self.identities = identities
        self.requests = requests
        self.authKey = authKey
        self.findings = findings
        self.error = error
        self.errorKind = errorKind
    }

    static func unreadable(_ path: String, _ error: Error) -> CredentialReport {
        let credentialError = error as? APNsCredentialError
        return CredentialReport(path: path, kind: .unreadable, summary: "unreadable", encoding: nil, leafIndex: nil,
                                certificates: [], privateKeys: [], requests: [], authKey: nil, findings: [],
                                error: credentialError?.message ?? "\(displayName(path)): \(error)",
                                errorKind: credentialError?.kind.rawValue ?? APNsCredentialError.Kind.unreadable.rawValue)
    }
}
