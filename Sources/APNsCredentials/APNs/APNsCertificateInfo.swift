// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import APNsProtocol
internal import COpenSSL
import Foundation

/// An APNs reading of one certificate: who it is for (bundle id, team), what it may do
/// (environments, topics), how long it lasts, and what is wrong with it.
///
/// It is a plain value computed once, so `inspect` and `check` print and test the same facts
/// and JSON output is just its encoding (docs/inspect-json.md). Reading never throws: a
/// malformed Apple extension becomes a finding, because a half-broken certificate is exactly
/// what a user runs `inspect` on.
package struct APNsCertificateInfo: Sendable, Codable {
    /// Where `environments` came from.
    package enum EnvironmentSource: String, Sendable, Codable {
        /// Apple's 1.2.840.113635.100.6.3.1 / .2 extensions.
        case `extension`
        /// No extensions: implied by the common name prefix (older certificates).
        case commonName
        /// Neither: not an APNs certificate.
        case none
    }

    package let subject: String
    package let issuer: String
    package let commonName: String?
    /// Subject UID: the app's bundle id (or pass type id, website push id).
    package let bundleID: String?
    /// Subject OU: the 10-character team id.
    package let teamID: String?
    package let organization: String?
    package let country: String?
    package let type: APNsCertificateType
    package let typeDescription: String
    /// Whether this looks like an Apple push certificate at all (name prefix or extensions).
    package let isAPNs: Bool
    package let environments: [APNsEnvironment]
    package let environmentSource: EnvironmentSource
    /// Topics from the topics extension; nil when the certificate has none or it is malformed.
    package let topics: [APNsTopic]?
    /// Why the topics extension could not be read, when it could not.
    package let topicsError: String?
    package let notBefore: Date
    package let notAfter: Date
    package let daysLeft: Int
    package let serialNumber: String
    package let sha1Fingerprint: String
    package let sha256Fingerprint: String
    /// `RSA`, `EC`, ...
    package let keyAlgorithm: String
    package let keyBits: Int
    /// `RSA-2048`, `EC P-256`.
    package let keySummary: String
    package let isCA: Bool
    /// Whether the given private key is this certificate's; nil when no key was given.
    package let keyMatches: Bool?
    package let findings: [Finding]

    /// Days before expiry at which `inspect` starts warning.
    package static let defaultExpiryWarningDays = 30

    package init(_ certificate: Certificate, key: PrivateKey? = nil, now: Date = Date(),
                expiryWarningDays: Int = APNsCertificateInfo.defaultExpiryWarningDays) {
        let subjectName = certificate.subject
        subject = subjectName.description
        issuer = certificate.issuer.description
        commonName = subjectName.commonName
        bundleID = subjectName.first("UID")
        teamID = subjectName.first("OU")
        organization = subjectName.first("O")
        country = subjectName.first("C")
        let classified = APNsCertificateType.classify(commonName: commonName)
        type = classified.type

        let extensionEnvironments = APNsEnvironment.allCases.filter { certificate.extensionValue(oid: $0.extensionOID) != nil }
        var topicsValue: [APNsTopic]? = nil
        var topicsProblem: String? = nil
        if let raw = certificate.extensionValue(oid: APNsTopics.oid) {
            do { topicsValue = try APNsTopics.parse(raw) } catch { topicsProblem = "\(error)" }
        }
        topics = topicsValue
        topicsError = topicsProblem
        isCA = certificate.isCA
        isAPNs = !isCA && (type != .other || !extensionEnvironments.isEmpty || topicsValue != nil || topicsProblem != nil)
        // Apple's extensions make it a push certificate whatever its name says; the type line
        // must not then contradict the environments printed under it.
        typeDescription = isAPNs && type == .other ? APNsCertificateType.unnamedPushDescription : classified.name
        if !extensionEnvironments.isEmpty {
            environments = extensionEnvironments
            environmentSource = .extension
        } else if isAPNs && !type.impliedEnvironments.isEmpty {
            environments = type.impliedEnvironments
            environmentSource = .commonName
        } else {
            environments = []
            environmentSource = .none
        }

        notBefore = certificate.notBefore
        notAfter = certificate.notAfter
        daysLeft = certificate.daysLeft(at: now)
        serialNumber = certificate.serialNumberHex
        sha1Fingerprint = certificate.fingerprint(.sha1)
        sha256Fingerprint = certificate.fingerprint(.sha256)
        let publicKey = certificate.publicKey
        keyAlgorithm = publicKey?.algorithm ?? "unknown"
        keyBits = publicKey?.bits ?? 0
        keySummary = publicKey?.summary ?? "unknown"
        keyMatches = key.map { $0.matches(certificate) }

        findings = Self.findings(isAPNs: isAPNs, isCA: isCA, commonName: commonName, environmentSource: environmentSource,
                                 topicsError: topicsProblem, keyMatches: keyMatches, keySummary: keySummary,
                                 notBefore: notBefore, notAfter: notAfter, daysLeft: daysLeft, now: now,
                                 expiryWarningDays: expiryWarningDays)
    }

    /// Whether pushing to `topic` is allowed: the topics extension when present, otherwise the
    /// bundle id (plus `.voip` for VoIP certificates), which is what APNs accepts for
    /// single-topic certificates. Nil when the topics extension is malformed.
    package func covers(topic: String) -> Bool? {
        if topicsError != nil { return nil }
        if let topics { return topics.contains { $0.topic == topic } }
        guard let bundleID else { return false }
        return topic == bundleID || (type == .voip && topic == bundleID + ".voip")
    }

    /// The topics a user can push to, for display: from the extension, else the bundle id.
    package var effectiveTopics: [String] {
        if let topics { return topics.map(\.topic) }
        if let bundleID, isAPNs { return [bundleID] }
        return []
    }

    /// The name messages use for this certificate: its common name, else its subject.
    package var displayName: String { commonName ?? subject }

    /// `2026-11-25`: how reports name a day (inspect, check, revocation, trust-report).
    package static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }

    private static func findings(isAPNs: Bool, isCA: Bool, commonName: String?, environmentSource: EnvironmentSource,
                                 topicsError: String?, keyMatches: Bool?, keySummary: String,
                                 notBefore: Date, notAfter: Date, daysLeft: Int, now: Date,
                                 expiryWarningDays: Int) -> [Finding] {
        var result: [Finding] = []
        if notAfter <= now {
            result.append(Finding(.error, "expired", "expired on \(day(notAfter)) (\(-daysLeft) days ago); create a new certificate in Apple's developer portal"))
        } else if notBefore > now {
            result.append(Finding(.error, "notYetValid", "not valid until \(day(notBefore)); check the system clock or wait"))
        } else if daysLeft < expiryWarningDays {
            result.append(Finding(.warning, "expiringSoon", "expires in \(daysLeft) days (on \(day(notAfter))); renew it soon"))
        }
        if keyMatches == false {
            result.append(Finding(.error, "keyMismatch", "the private key is not this certificate's key; use the key the CSR was made with"))
        }
        if let topicsError {
            result.append(Finding(.error, "malformedTopics", "the topics extension (\(APNsTopics.oid)) is malformed: \(topicsError)"))
        }
        if !isAPNs && !isCA {
            result.append(Finding(.warning, "notAPNs", "not an Apple push certificate (common name \"\(commonName ?? "none")\" has no Apple push prefix and there are no APNs extensions)"))
        }
        if isCA && keyMatches == true {
            // A CA with its own key presented as a client identity: APNs takes only the leaf
            // Apple issued, so this is never a push certificate whatever else it carries.
            result.append(Finding(.error, "caCertificate", "a CA certificate (CA:TRUE) with its private key, not an Apple push certificate; APNs accepts only the push certificate Apple issued"))
        }
        if isAPNs && environmentSource == .commonName {
            result.append(Finding(.info, "environmentFromName", "no environment extensions; environments inferred from the common name"))
        }
        return result
    }
}

extension Certificate {
    /// The certificate's public key as a key object (for algorithm and size), or nil.
    var publicKey: PrivateKey? {
        // A reference of its own: the key outlives the loan.
        guard let key = withUnsafePointer({ x509 in X509_get0_pubkey(x509).map { EVP_PKEY_up_ref($0); return $0 } }) else { return nil }
        return PrivateKey(taking: key)
    }

    /// The APNs view of this certificate.
    package func apnsInfo(key: PrivateKey? = nil, now: Date = Date()) -> APNsCertificateInfo {
        APNsCertificateInfo(self, key: key, now: now)
    }
}
