// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import APNsProtocol
import Foundation

/// What `inspect` and `check` report about a provisioning profile; its JSON encoding is the
/// `profile` object of docs/inspect-json.md. A plain value computed once, like
/// `APNsCertificateInfo`, so text, JSON and the gate read the same facts.
package struct ProvisioningProfileInfo: Sendable, Codable {
    /// How the profile distributes the app, derived as Xcode shows it.
    package enum Distribution: String, Sendable, Codable {
        /// `get-task-allow` true: a debugger may attach; listed devices.
        case development
        /// Listed devices, no debugger.
        case adHoc
        /// `ProvisionsAllDevices`: the Enterprise Program's in-house distribution.
        case enterprise
        /// No devices: App Store and TestFlight.
        case appStore
    }

    package struct DeveloperCertificate: Sendable, Codable {
        package let subject: String
        package let commonName: String?
        package let notAfter: Date
        package let daysLeft: Int
        package let sha1Fingerprint: String
    }

    /// Who signed the CMS envelope and whether that holds.
    package struct Signature: Sendable, Codable {
        /// The signer certificate's subject; omitted when the envelope does not carry it.
        package let signer: String?
        package let signerCommonName: String?
        /// Whether the signature verifies over the property list (no chain check).
        package let valid: Bool
        /// Why not, when it does not.
        package let error: String?
        /// Whether the signer chains to `--ca-file`; omitted without one ("signature not verified").
        package let chainVerified: Bool?
        package let chainError: String?
    }

    package let name: String
    package let uuid: String
    package let platforms: [String]
    package let appIDName: String?
    /// `TEAMID.com.example.app` as in the entitlements.
    package let applicationIdentifier: String
    /// The part before the first dot (the team id, or an old-style app id prefix).
    package let appIDPrefix: String
    /// The part after it: a bundle id, `com.example.*` or `*`.
    package let bundleID: String
    package let isWildcard: Bool
    package let teamID: String?
    package let teamName: String?
    /// `development` or `production`; omitted when push is not enabled.
    package let apsEnvironment: String?
    /// The APNs environment the app's device tokens belong to: `sandbox` for development,
    /// `production` for production; omitted without `apsEnvironment` or with another value.
    package let pushEnvironment: APNsEnvironment?
    package let distribution: Distribution
    package let creationDate: Date
    package let expirationDate: Date
    package let daysLeft: Int
    package let provisionsAllDevices: Bool
    package let deviceCount: Int
    package let developerCertificates: [DeveloperCertificate]
    package let signature: Signature

    package init(_ profile: ProvisioningProfile, envelope: CMSSignedData, trust: TrustStore?, now: Date = Date()) {
        name = profile.name
        uuid = profile.uuid
        platforms = profile.platforms
        appIDName = profile.appIDName
        applicationIdentifier = profile.applicationIdentifier
        let split = AppIdentifier.split(profile.applicationIdentifier)
        appIDPrefix = split.prefix
        bundleID = split.bundleID
        isWildcard = split.bundleID.hasSuffix("*")
        teamID = profile.teamIdentifiers.first
        teamName = profile.teamName
        apsEnvironment = profile.apsEnvironment
        pushEnvironment = profile.apsEnvironment.flatMap(AppIdentifier.pushEnvironment(apsEnvironment:))
        if profile.provisionsAllDevices { distribution = .enterprise }
        else if profile.getTaskAllow == true { distribution = .development }
        else if profile.deviceCount > 0 { distribution = .adHoc }
        else { distribution = .appStore }
        creationDate = profile.creationDate
        expirationDate = profile.expirationDate
        daysLeft = Int((profile.expirationDate.timeIntervalSince(now) / 86_400).rounded(.down))
        provisionsAllDevices = profile.provisionsAllDevices
        deviceCount = profile.deviceCount
        developerCertificates = profile.developerCertificates.map { der in
            guard let certificate = try? Certificate(der: der, label: "DeveloperCertificates") else {
                OpenSSLErrorQueue.clear()
                return DeveloperCertificate(subject: "(unreadable certificate)", commonName: nil, notAfter: .distantPast, daysLeft: 0, sha1Fingerprint: "")
            }
            return DeveloperCertificate(subject: certificate.subject.description, commonName: certificate.subject.commonName,
                                        notAfter: certificate.notAfter, daysLeft: certificate.daysLeft(at: now),
                                        sha1Fingerprint: certificate.fingerprint(.sha1))
        }
        let signer = envelope.signerCertificate
        let signatureError = envelope.signatureFailure()
        var chainError: String? = nil
        if let trust {
            if let signer {
                chainError = trust.verificationFailure(signer, intermediates: envelope.certificates)
            } else {
                chainError = "the envelope does not carry the signer's certificate"
            }
        }
        signature = Signature(signer: signer?.subject.description, signerCommonName: signer?.subject.commonName,
                              valid: signatureError == nil, error: signatureError,
                              chainVerified: trust == nil ? nil : chainError == nil, chainError: chainError)
    }
}

/// Application identifiers (`TEAMID.bundle`) and the bundle ids they cover.
package enum AppIdentifier {
    /// `("A1B2C3D4E5", "com.example.app")` from `A1B2C3D4E5.com.example.app`.
    package static func split(_ identifier: String) -> (prefix: String, bundleID: String) {
        guard let dot = identifier.firstIndex(of: ".") else { return ("", identifier) }
        return (String(identifier[..<dot]), String(identifier[identifier.index(after: dot)...]))
    }

    /// Whether the app id's bundle part (`com.example.app`, `com.example.*`, `*`) covers
    /// `bundleID`: equal, or a wildcard whose prefix it starts with.
    package static func covers(_ pattern: String, bundleID: String) -> Bool {
        guard pattern.hasSuffix("*") else { return pattern == bundleID }
        return bundleID.hasPrefix(String(pattern.dropLast()))
    }

    /// `development` -> sandbox, `production` -> production (apns-protocol.md §9).
    package static func pushEnvironment(apsEnvironment: String) -> APNsEnvironment? {
        switch apsEnvironment {
        case "development": return .sandbox
        case "production": return .production
        default: return nil
        }
    }
}

/// The findings about a profile on its own (the cross-checks against push credentials are
/// `ProfileCheck.crossCheck`'s).
extension ProvisioningProfileInfo {
    /// The file report's findings (inspect exits 1 on an error among them).
    package func findings(now: Date = Date(), expiryWarningDays: Int = APNsCertificateInfo.defaultExpiryWarningDays) -> [Finding] {
        var result: [Finding] = []
        let day = APNsCertificateInfo.day(expirationDate)
        if expirationDate <= now {
            result.append(Finding(.error, "expired", "the profile expired on \(day) (\(-daysLeft) days ago); regenerate it in Apple's developer portal or Xcode and rebuild the app"))
        } else if daysLeft < expiryWarningDays {
            result.append(Finding(.warning, "expiringSoon", "the profile expires in \(daysLeft) days (on \(day)); regenerate it and ship a build before then"))
        }
        if let apsEnvironment, pushEnvironment == nil {
            result.append(Finding(.error, "unknownApsEnvironment", "aps-environment is \"\(apsEnvironment)\", neither development nor production; regenerate the profile"))
        } else if apsEnvironment == nil {
            let why = isWildcard ? " (a wildcard app id cannot have push; make an explicit app id)" : ""
            result.append(Finding(.warning, "noApsEnvironment", "no aps-environment entitlement: push notifications are not enabled for this app id\(why); enable the Push Notifications capability and regenerate the profile"))
        }
        if !developerCertificates.isEmpty && developerCertificates.allSatisfy({ $0.notAfter <= now }) {
            result.append(Finding(.warning, "developerCertificatesExpired", "every developer certificate in the profile has expired; the app cannot be signed with it, regenerate the profile with a current certificate"))
        }
        if let error = signature.error {
            result.append(Finding(.error, "badSignature", "the profile's signature does not verify (\(error)); it was altered after signing, download it again"))
        }
        if let chainError = signature.chainError {
            result.append(Finding(.error, "signerNotTrusted", "the profile's signer does not chain to the CA file: \(chainError)"))
        } else if signature.chainVerified == nil {
            result.append(Finding(.info, "signatureNotVerified", "signature not verified against a CA (give a CA file with Apple's root to check who signed it)"))
        }
        return result
    }
}
