// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import APNsProtocol
import Foundation

/// `apnskit check` over provisioning profiles: the profile on its own under the run's policy,
/// and cross-checked against the push credentials of the same run (apns-protocol.md §9).
package enum ProfileCheck {
    /// Failures and warnings of a profile on its own: expiry horizon, signature, `--environment`
    /// and `--topic` against its entitlements.
    static func reasons(_ profile: ProvisioningProfileInfo, policy: CheckPolicy, now: Date) -> (failures: [String], warnings: [String]) {
        var failures: [String] = []
        var warnings: [String] = []
        let day = APNsCertificateInfo.day(profile.expirationDate)
        if profile.expirationDate <= now {
            failures.append("profile expired on \(day); regenerate it and rebuild the app")
        } else if profile.daysLeft < policy.minimumDays {
            failures.append("profile expires in \(profile.daysLeft) days on \(day) (\(policy.name(.minimumDays)) \(policy.minimumDays)); regenerate it and ship a build before then")
        }
        for finding in profile.findings(now: now, expiryWarningDays: policy.minimumDays)
        where !["expired", "expiringSoon", "signatureNotVerified"].contains(finding.code) {
            if finding.severity == .error { failures.append(finding.message) }
            if finding.severity == .warning { warnings.append(finding.message) }
        }
        if let environment = policy.environment, let apsEnvironment = profile.apsEnvironment, profile.pushEnvironment != environment {
            let wanted = environment == .production ? "production" : "development"
            failures.append("aps-environment is \(apsEnvironment), so the app's device tokens are not for \(environment.rawValue); build with a profile whose aps-environment is \(wanted)")
        }
        if let topic = policy.topic, !AppIdentifier.covers(profile.bundleID, bundleID: appTopic(topic)) {
            failures.append("app id \(profile.applicationIdentifier) does not cover topic \(topic)")
        }
        if policy.trust == nil {
            warnings.append("signature not verified (no \(policy.name(.caFile)))")
        }
        return (failures, warnings)
    }

    /// The check line of a profile on its own (`crossCheck` may add to it later).
    static func result(_ path: String, _ summary: String, _ profile: ProvisioningProfileInfo, policy: CheckPolicy, now: Date) -> CheckResult {
        let (failures, warnings) = reasons(profile, policy: policy, now: now)
        let status: CheckResult.Status = !failures.isEmpty ? .fail : (!warnings.isEmpty ? .warn : .ok)
        var result = CheckResult(path: path, status: status, summary: summary, reasons: failures + warnings, bundleID: profile.bundleID,
                                 type: nil, environments: profile.pushEnvironment.map { [$0] } ?? [],
                                 notAfter: profile.expirationDate, daysLeft: profile.daysLeft)
        result.profile = profile
        return result
    }

    /// The bundle id behind a topic: `com.example.app.voip` -> `com.example.app`.
    static func appTopic(_ topic: String) -> String {
        for suffix in [".voip", ".complication", ".pushkit.fileprovider"] where topic.hasSuffix(suffix) {
            return String(topic.dropLast(suffix.count))
        }
        return topic
    }

    /// Why `profile` and the run's push credentials do not work together; empty when they do
    /// (or when there are none). Certificates for other bundle ids are other apps' when at
    /// least one certificate matches the app id; when none does, each mismatch is reported.
    package static func crossCheck(_ profile: ProvisioningProfileInfo, against credentials: [PushCredentialFacts]) -> [String] {
        guard !credentials.isEmpty else { return [] }
        guard let apsEnvironment = profile.apsEnvironment, let pushEnvironment = profile.pushEnvironment else {
            let names = credentials.map(\.label).joined(separator: ", ")
            if profile.apsEnvironment != nil { return [] }  // unknownApsEnvironment already fails it
            let how = profile.isWildcard
                ? "a wildcard app id cannot have push: make an explicit app id for the app, enable Push Notifications and regenerate the profile"
                : "enable Push Notifications for \(profile.applicationIdentifier) and regenerate the profile"
            return ["the profile has no aps-environment entitlement, so the app gets no device token to send to with \(names); \(how)"]
        }
        let certificates = credentials.filter { $0.kind == .certificate }
        let matching = certificates.filter { AppIdentifier.covers(profile.bundleID, bundleID: $0.bundleID ?? "") }
        var failures: [String] = []
        if matching.isEmpty {
            for certificate in certificates {
                failures.append("app id \(profile.applicationIdentifier) does not match the bundle id of \(certificate.label); use the push certificate for \(profile.bundleID), or the profile for \(certificate.bundleID ?? "that app")")
            }
        }
        for certificate in matching {
            if !certificate.environments.contains(pushEnvironment) {
                failures.append(environmentMismatch(apsEnvironment: apsEnvironment, pushEnvironment: pushEnvironment, certificate))
            }
            let profileTeam = profile.teamID ?? profile.appIDPrefix
            if let team = certificate.teamID, team != profileTeam {
                failures.append("the profile's team \(profileTeam) is not the team \(team) of \(certificate.label); use credentials from the same developer account")
            }
        }
        return failures
    }

    static func environmentMismatch(apsEnvironment: String, pushEnvironment: APNsEnvironment, _ certificate: PushCredentialFacts) -> String {
        let serves = certificate.environments.isEmpty ? "no APNs environment" : "only " + certificate.environments.map(\.rawValue).joined(separator: " + ")
        let fix = pushEnvironment == .production
            ? "use a production or universal (Apple Push Services) certificate, or build with a development profile"
            : "use a development or universal (Apple Push Services) certificate, or build with a distribution profile"
        return "aps-environment is \(apsEnvironment) (\(pushEnvironment.rawValue) device tokens) but \(certificate.label) serves \(serves); \(fix)"
    }

    /// `result` with the cross-check failures added (FAIL when there are any). The profile's
    /// own "push not enabled" warning goes: the cross-check's failure says it with the credential.
    package static func applying(_ failures: [String], to result: CheckResult) -> CheckResult {
        guard !failures.isEmpty, let profile = result.profile else { return result }
        let superseded = profile.findings().filter { $0.code == "noApsEnvironment" }.map(\.message)
        var changed = result.replacing(status: .fail, reasons: failures + result.reasons.filter { !superseded.contains($0) })
        changed.profile = result.profile
        return changed
    }
}
