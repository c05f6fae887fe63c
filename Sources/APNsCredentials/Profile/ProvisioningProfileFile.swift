// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// Reads `.mobileprovision` / `.provisionprofile` files: the CMS envelope with OpenSSL, the
/// property list inside with Foundation, then the facts. Every failure is a `APNsCredentialError`
/// of kind `unreadable` (exit 3) with one sentence.
package enum ProvisioningProfileFile {
    /// The file extensions of provisioning profiles (iOS/tvOS/watchOS and macOS).
    package static let extensions: Set<String> = ["mobileprovision", "provisionprofile"]

    /// Larger files are refused: the property list's own bound plus room for the envelope's
    /// signer chain.
    package static let maximumSize = PropertyListBounds.maximumSize + 256 * 1024

    /// A profile by name, or by content (a CMS SignedData, whatever the name): credential
    /// files are never CMS, so the sniff cannot take one for a profile.
    package static func isProfile(path: String, bytes: [UInt8]) -> Bool {
        extensions.contains((path as NSString).pathExtension.lowercased()) || CMSSignedData.looksLikeSignedData(bytes)
    }

    /// Decodes the envelope and its property list; `trust` checks the signer's chain.
    package static func read(_ bytes: [UInt8], label: String, trust: TrustStore?, now: Date = Date()) throws -> ProvisioningProfileInfo {
        guard bytes.count <= maximumSize else {
            throw APNsCredentialError(.unreadable, "\(label) is \(bytes.count) bytes, more than the \(maximumSize) a provisioning profile may be; it is not one.")
        }
        guard bytes.first == 0x30 else {
            let what = PEMScanner.looksLikePEM(bytes) ? "PEM text" : "not DER"
            throw APNsCredentialError(.unreadable, "\(label) is not a provisioning profile (\(what); a profile is a DER CMS signed message); download the .mobileprovision from the developer portal or Xcode.")
        }
        if let problem = DERLength.truncation(in: bytes) {
            throw APNsCredentialError(.unreadable, "\(label) is truncated: \(problem); download the profile again.")
        }
        let envelope = try CMSSignedData(der: bytes, label: label)
        let profile = try ProvisioningProfile.parse(plist: envelope.content ?? [], label: label)
        return ProvisioningProfileInfo(profile, envelope: envelope, trust: trust, now: now)
    }

    /// The inspect report of a profile file (never throws, like `CredentialInspector`).
    static func report(_ path: String, _ bytes: [UInt8], trust: TrustStore?, now: Date, expiryWarningDays: Int) -> CredentialReport {
        do {
            let info = try read(bytes, label: displayName(path), trust: trust, now: now)
            let push = info.apsEnvironment.map { "aps-environment \($0)" } ?? "no aps-environment"
            let summary = "provisioning profile (\(info.distribution.rawValue)) for \(info.applicationIdentifier), \(push)"
            var report = CredentialReport(path: path, kind: .provisioningProfile, summary: summary, encoding: "der", leafIndex: nil,
                                          certificates: [], privateKeys: [], requests: [], authKey: nil,
                                          findings: info.findings(now: now, expiryWarningDays: expiryWarningDays))
            report.profile = info
            return report
        } catch {
            return CredentialReport.unreadable(path, error)
        }
    }
}
