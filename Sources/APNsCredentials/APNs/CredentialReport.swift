import Foundation

/// What `apnskit inspect` found in one file; its JSON encoding is the documented
/// `inspect --format json` schema (docs/inspect-json.md). Optional fields are omitted when
/// they do not apply.
public struct CredentialReport: Sendable, Codable {
    /// What the file is, as a stable word for scripts.
    public enum Kind: String, Sendable, Codable {
        case certificate, certificateChain, combinedPEM, pkcs12, privateKey, authKey, certificateRequest, provisioningProfile, other, unreadable
    }

    public struct KeyInfo: Sendable, Codable {
        public let algorithm: String
        public let bits: Int
        /// `RSA-2048`, `EC P-256`.
        public let summary: String
        /// Whether the file stored it encrypted.
        public let encrypted: Bool
        /// Whether it is the key of the file's leaf certificate; omitted with no certificate.
        public let matchesCertificate: Bool?
        /// Index in `certificates` of the certificate this key belongs to; omitted when none.
        public let certificateIndex: Int?
        public let friendlyName: String?
        /// localKeyId as lower-case hex.
        public let localKeyID: String?
    }

    /// One key + certificate pair (an identity a TLS client can present), as `p12 split
    /// --identity` and `prepare --identity` number them.
    public struct IdentityInfo: Sendable, Codable {
        public let number: Int
        public let friendlyName: String?
        /// localKeyId as lower-case hex.
        public let localKeyID: String?
        public let subject: String
        public let commonName: String?
        public let certificateIndex: Int
        public let keyIndex: Int
    }

    public struct RequestInfo: Sendable, Codable {
        public let subject: String
        public let keySummary: String
        public let signatureValid: Bool
        /// Whether the private key (in the file or from `--key`) is the request's; omitted without one.
        public let matchesKey: Bool?
    }

    /// A token-auth signing key, `AuthKey_<KEYID>.p8` (PKCS#8, EC P-256).
    public struct AuthKeyInfo: Sendable, Codable {
        /// The 10-character key id from the file name; omitted when the name does not carry one.
        public let keyID: String?
        public let curve: String
        /// Whether it is usable for APNs token auth (EC P-256).
        public let usable: Bool
    }

    public let path: String
    public let kind: Kind
    /// One line a person reads first: "combined PEM: certificate + matching RSA-2048 key".
    public let summary: String
    /// `pem`, `der` or `pkcs12`; omitted when unreadable.
    public let encoding: String?
    /// Index in `certificates` of the leaf (the certificate the rest is about); omitted with none.
    public let leafIndex: Int?
    public let certificates: [APNsCertificateInfo]
    public let privateKeys: [KeyInfo]
    /// Every key + certificate pair in the file (empty when there is none).
    public let identities: [IdentityInfo]
    public let requests: [RequestInfo]
    public let authKey: AuthKeyInfo?
    /// Findings about the file as a whole (each certificate has its own, too).
    public let findings: [Finding]
    /// Why the file could not be read; only for `unreadable`.
    public let error: String?
    /// `CredentialError.Kind` of `error`: unreadable, wrongPassphrase, missingPassphrase, ...
    public let errorKind: String?
    /// Only for `provisioningProfile`: what the profile says (docs/inspect-json.md).
    public internal(set) var profile: ProvisioningProfileInfo? = nil

    /// The leaf certificate's facts, if there is one.
    public var leaf: APNsCertificateInfo? { leafIndex.map { certificates[$0] } }

    /// Every finding: the file's, then each certificate's.
    public var allFindings: [Finding] { findings + certificates.flatMap(\.findings) }

    /// Every finding with the certificate it is about: nil for the file's own findings, and
    /// the certificate's name when the file holds more than one (else the same "expired" line
    /// could be about any of them).
    public var attributedFindings: [(about: String?, finding: Finding)] {
        let named = certificates.count > 1
        return findings.map { (nil, $0) } + certificates.flatMap { info in
            info.findings.map { (named ? info.displayName : nil, $0) }
        }
    }

    /// The most severe finding, or nil when there are none.
    public var worstSeverity: Finding.Severity? { allFindings.map(\.severity).max() }

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
        let credentialError = error as? CredentialError
        return CredentialReport(path: path, kind: .unreadable, summary: "unreadable", encoding: nil, leafIndex: nil,
                                certificates: [], privateKeys: [], requests: [], authKey: nil, findings: [],
                                error: credentialError?.message ?? "\(displayName(path)): \(error)",
                                errorKind: credentialError?.kind.rawValue ?? CredentialError.Kind.unreadable.rawValue)
    }
}
