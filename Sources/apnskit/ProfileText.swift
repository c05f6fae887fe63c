// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation

/// The text form of a provisioning profile in `inspect`, aligned like the certificate facts.
enum ProfileText {
    static func lines(_ profile: ProvisioningProfileInfo) -> [String] {
        var out: [String] = []
        func fact(_ label: String, _ value: String) { out.append("  " + (label + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + value) }
        fact("Name", profile.name)
        fact("UUID", profile.uuid)
        fact("Platform", profile.platforms.isEmpty ? "(not stated)" : profile.platforms.joined(separator: ", "))
        fact("Distribution", distributionText(profile.distribution))
        let wildcard = profile.isWildcard ? " (wildcard)" : ""
        fact("App id", "\(profile.applicationIdentifier)\(wildcard)" + (profile.appIDName.map { " \"\($0)\"" } ?? ""))
        fact("Bundle id", profile.bundleID + wildcard)
        fact("App prefix", profile.appIDPrefix)
        fact("Team", (profile.teamID ?? "(none)") + (profile.teamName.map { " \($0)" } ?? ""))
        let environment = profile.pushEnvironment.map { " (device tokens for \($0.rawValue))" } ?? ""
        fact("Push", profile.apsEnvironment.map { "aps-environment \($0)\(environment)" } ?? "not enabled (no aps-environment)")
        fact("Created", InspectText.day(profile.creationDate))
        fact("Expires", "\(InspectText.day(profile.expirationDate)) (\(InspectText.daysText(profile.daysLeft)))")
        fact("Devices", profile.provisionsAllDevices ? "all devices (enterprise)" : "\(profile.deviceCount)")
        for certificate in profile.developerCertificates {
            fact("Certificate", "\(certificate.commonName ?? certificate.subject), until \(InspectText.day(certificate.notAfter)), SHA-1 \(certificate.sha1Fingerprint)")
        }
        let signature = profile.signature
        let signer = signature.signerCommonName ?? signature.signer ?? "(signer certificate not in the envelope)"
        let state: String
        if !signature.valid { state = "signature INVALID" }
        else if signature.chainVerified == true { state = "signature valid, chain verified to --ca-file" }
        else if signature.chainVerified == false { state = "signature valid, chain NOT verified to --ca-file" }
        else { state = "signature valid over the content; signature not verified against a CA (no --ca-file)" }
        fact("Signed by", "\(signer) (\(state))")
        return out
    }

    static func distributionText(_ distribution: ProvisioningProfileInfo.Distribution) -> String {
        switch distribution {
        case .development: return "development (get-task-allow)"
        case .adHoc: return "ad hoc (listed devices)"
        case .enterprise: return "enterprise / in-house (all devices)"
        case .appStore: return "App Store / TestFlight (no devices)"
        }
    }
}
