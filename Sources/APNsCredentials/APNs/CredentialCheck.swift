// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import APNsProtocol
import Foundation

/// What `apnskit check` demands of every file (its flags).
package struct CheckPolicy: Sendable {
    /// A certificate expiring within this many days fails.
    package var minimumDays: Int
    package var environment: APNsEnvironment?
    package var topic: String?
    /// Certificates must come with their private key (combined PEM, p12).
    package var requireKey: Bool
    /// Chains are verified against this; without it every certificate gets a warning.
    package var trust: TrustStore?
    package var trustLabel: String?
    /// A certificate with less than this percentage of its lifetime left fails (`--min-remaining`).
    package var minimumRemainingPercent: Double? = nil
    /// The key id of token-auth keys whose name does not carry one (`--key-id`).
    package var keyID: String? = nil
    /// Ask each push certificate's issuer whether it was revoked (`--revocation`).
    package var revocation: RevocationPolicy? = nil
    /// How inputs are wrapped (`--base64`).
    package var decoding: CredentialDecoding = .automatic
    /// How reasons name the rule that produced them: the CLI maps these to its flags
    /// (`--min-days`, ...); the library itself never names a flag.
    package var ruleNames: [Rule: String] = [:]

    package enum Rule: Sendable, Hashable {
        case minimumDays, requireKey, caFile, minimumRemaining, keyID, revocationRequired
    }

    func name(_ rule: Rule) -> String {
        if let name = ruleNames[rule] { return name }
        switch rule {
        case .minimumDays: return "minimum days"
        case .requireKey: return "key required"
        case .caFile: return "CA file"
        case .minimumRemaining: return "minimum remaining lifetime"
        case .keyID: return "key id"
        case .revocationRequired: return "revocation required"
        }
    }

    package init(minimumDays: Int = 30, environment: APNsEnvironment? = nil, topic: String? = nil,
                requireKey: Bool = false, trust: TrustStore? = nil, trustLabel: String? = nil) {
        self.minimumDays = minimumDays
        self.environment = environment
        self.topic = topic
        self.requireKey = requireKey
        self.trust = trust
        self.trustLabel = trustLabel
    }
}

/// One line of `check` output: a file's verdict and why.
package struct CheckResult: Sendable, Codable {
    package enum Status: String, Sendable, Codable {
        case ok = "OK", warn = "WARN", fail = "FAIL", unreadable = "UNREADABLE"
    }

    package let path: String
    package let status: Status
    /// What the file is (the inspect summary, with the leaf's identity).
    package let summary: String
    /// Why it is not OK, most important first; empty for OK.
    package let reasons: [String]
    /// Leaf certificate facts, when there is one.
    package let bundleID: String?
    package let type: APNsCertificateType?
    package let environments: [APNsEnvironment]?
    package let notAfter: Date?
    package let daysLeft: Int?
    /// Every certificate in the file, leaf first as the file orders them (for per-certificate
    /// reports such as `--format prometheus`).
    package var certificates: [CheckedCertificate] = []
    /// A token-auth key's id (from the file name or `--key-id`).
    package var keyID: String? = nil
    /// Only for provisioning profiles: what the profile says (as in `inspect`).
    package internal(set) var profile: ProvisioningProfileInfo? = nil

    /// The same file with another verdict (the profile cross-check adds its failures).
    func replacing(status: Status, reasons: [String]) -> CheckResult {
        var result = CheckResult(path: path, status: status, summary: summary, reasons: reasons, bundleID: bundleID, type: type,
                                 environments: environments, notAfter: notAfter, daysLeft: daysLeft)
        result.certificates = certificates
        result.keyID = keyID
        result.profile = profile
        return result
    }
}

/// The CI gate: turns each file's inspection into OK / WARN / FAIL / UNREADABLE under a policy.
package enum CredentialChecker {
    package static func check(_ path: String, policy: CheckPolicy, passphrases: PassphraseSupplier, now: Date = Date()) -> CheckResult {
        let (report, contents) = CredentialInspector.inspectLoaded(path, passphrases: passphrases, extraKey: nil, now: now,
                                                                   expiryWarningDays: policy.minimumDays, decoding: policy.decoding,
                                                                   profileTrust: policy.trust)
        guard let contents else {
            return CheckResult(path: path, status: .unreadable, summary: "unreadable", reasons: [report.error ?? "unreadable"],
                               bundleID: nil, type: nil, environments: nil, notAfter: nil, daysLeft: nil)
        }
        var failures: [String] = []
        var warnings: [String] = []
        var summary = report.summary
        var keyID: String? = nil
        var revocations: [String: RevocationRecord] = [:]

        if let leafIndex = report.leafIndex {
            let leaf = report.certificates[leafIndex]
            summary += leaf.isAPNs ? " for \(leaf.bundleID ?? "?") (\(leaf.type.rawValue))" : " (\(leaf.commonName ?? leaf.subject))"
            if leaf.isCA {
                // No end-entity certificate: a CA bundle, or a CA presented as a push identity.
                for info in report.certificates {
                    failures += validityFailures(info, policy: policy, now: now, prefix: "\(info.displayName): ")
                }
                if leaf.keyMatches == true {
                    failures.append("a CA certificate (CA:TRUE) with its private key, not an Apple push certificate")
                } else if policy.requireKey {
                    failures.append("only CA certificates (CA:TRUE), no push certificate and no private key (\(policy.name(.requireKey)))")
                } else {
                    warnings.append("only CA certificates (CA:TRUE), no Apple push certificate")
                }
            } else {
                // Every identity in the file is checked, each named when there are several: a
                // sender may be handed any of them, and "expired" must say which.
                let subjects = report.identities.count > 1 ? report.identities.map(\.certificateIndex) : [leafIndex]
                let keyLocked = report.findings.contains { $0.code == "keyNotChecked" }
                for index in subjects {
                    let info = report.certificates[index]
                    let prefix = subjects.count > 1 ? "\(info.displayName): " : ""
                    let (failed, warned) = leafReasons(info, policy: policy, now: now, prefix: prefix, keyLocked: keyLocked)
                    failures += failed
                    warnings += warned
                }
            }
            for finding in report.findings {
                switch finding.code {
                case "keyNotChecked":
                    if policy.requireKey { failures.append("\(finding.message) (\(policy.name(.requireKey)))") } else { warnings.append(finding.message) }
                case "multipleKeys", "multipleIdentities":
                    warnings.append(finding.message)
                default:
                    break
                }
            }
            if let trust = policy.trust {
                let subjects = report.identities.count > 1 ? report.identities.map(\.certificateIndex) : [leafIndex]
                for index in subjects {
                    let certificate = contents.certificates[index]
                    var others = contents.certificates
                    others.remove(at: index)
                    if let failure = trust.verificationFailure(certificate, intermediates: others) {
                        let prefix = subjects.count > 1 ? "\(report.certificates[index].displayName): " : ""
                        failures.append("\(prefix)chain does not verify to \(policy.trustLabel ?? "the CA file"): \(failure)")
                    }
                }
            } else {
                warnings.append("chain not checked (no \(policy.name(.caFile)))")
            }
            if let revocation = policy.revocation, !report.certificates[leafIndex].isCA {
                let subjects = report.identities.count > 1 ? report.identities.map(\.certificateIndex) : [leafIndex]
                for index in subjects {
                    let prefix = subjects.count > 1 ? "\(report.certificates[index].displayName): " : ""
                    let outcome = revocation.judge(contents.certificates[index], among: contents.certificates + (policy.trust?.certificates ?? []), now: now)
                    failures += outcome.failures.map { prefix + $0 + (outcome.required ? " (\(policy.name(.revocationRequired)))" : "") }
                    warnings += outcome.warnings.map { prefix + $0 }
                    revocations[report.certificates[index].sha256Fingerprint] = outcome.record
                }
            }
        } else if let profile = report.profile {
            return ProfileCheck.result(path, report.summary, profile, policy: policy, now: now)
        } else if let authKey = AuthKeyCheck(report: report, contents: contents, path: path, policy: policy) {
            failures += authKey.failures
            warnings += authKey.warnings
            summary = authKey.summary
            keyID = authKey.keyID
        } else if report.kind == .certificateRequest {
            warnings.append("a certificate signing request, not a certificate")
        } else if report.kind == .other {
            warnings.append("no certificate, private key or CSR in the file")
        }

        let status: CheckResult.Status = !failures.isEmpty ? .fail : (!warnings.isEmpty ? .warn : .ok)
        let leaf = report.leaf
        var certificates = CheckedCertificate.all(in: report, now: now)
        for index in certificates.indices { certificates[index].revocation = revocations[certificates[index].sha256Fingerprint] }
        return CheckResult(path: path, status: status, summary: summary, reasons: failures + warnings,
                           bundleID: leaf?.bundleID, type: leaf?.type, environments: leaf?.environments,
                           notAfter: leaf?.notAfter, daysLeft: leaf?.daysLeft,
                           certificates: certificates, keyID: keyID)
    }

    /// Expired, not yet valid, or expiring within the policy's horizon (days, or share of the
    /// lifetime).
    static func validityFailures(_ info: APNsCertificateInfo, policy: CheckPolicy, now: Date, prefix: String) -> [String] {
        if info.notAfter <= now { return ["\(prefix)expired on \(APNsCertificateInfo.day(info.notAfter))"] }
        if info.notBefore > now { return ["\(prefix)not valid until \(APNsCertificateInfo.day(info.notBefore))"] }
        if info.daysLeft < policy.minimumDays {
            return ["\(prefix)expires in \(info.daysLeft) days on \(APNsCertificateInfo.day(info.notAfter)) (\(policy.name(.minimumDays)) \(policy.minimumDays))"]
        }
        if let shortfall = policy.lifetimeShortfall(info, now: now) { return ["\(prefix)\(shortfall)"] }
        return []
    }

    /// What the policy demands of one end-entity certificate.
    /// - Parameter keyLocked: the file's key stayed encrypted; that is reported on its own,
    ///   not as "no private key".
    static func leafReasons(_ leaf: APNsCertificateInfo, policy: CheckPolicy, now: Date, prefix: String,
                            keyLocked: Bool) -> (failures: [String], warnings: [String]) {
        var failures = validityFailures(leaf, policy: policy, now: now, prefix: prefix)
        var warnings: [String] = []
        if let error = leaf.topicsError {
            failures.append("\(prefix)topics extension is malformed: \(error)")
        }
        if let environment = policy.environment, !leaf.environments.contains(environment) {
            let has = leaf.environments.isEmpty ? "no APNs environment" : leaf.environments.map(\.rawValue).joined(separator: " + ") + " only"
            failures.append("\(prefix)not valid for \(environment.rawValue) (\(has))")
        }
        if let topic = policy.topic, leaf.covers(topic: topic) == false {
            let covered = leaf.effectiveTopics.isEmpty ? "none" : leaf.effectiveTopics.joined(separator: ", ")
            failures.append("\(prefix)topic \(topic) not covered (covers: \(covered))")
        }
        if leaf.keyMatches == false {
            failures.append("\(prefix)private key does not match the certificate")
        } else if leaf.keyMatches == nil && policy.requireKey && !keyLocked {
            failures.append("\(prefix)no private key in the file (\(policy.name(.requireKey)))")
        }
        if !leaf.isAPNs {
            warnings.append("\(prefix)not an Apple push certificate")
        }
        return (failures, warnings)
    }

    /// The file extensions a folder walk picks up.
    package static let credentialExtensions: Set<String> = Set(["pem", "cer", "crt", "p12", "pfx", "p8"]).union(ProvisioningProfileFile.extensions)

    /// Expands folders (recursively, sorted, credential extensions only); files given by name
    /// are kept whatever their extension. Missing paths are kept so they report as unreadable.
    package static func expand(_ paths: [String]) -> [String] {
        var result: [String] = []
        for path in paths {
            var status = stat()
            let bytes = RawPath.systemBytes(path)
            guard !CredentialInput.isNameless(path), stat(RawPath.cString(bytes), &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                result.append(path)
                continue
            }
            // By bytes, not through Foundation's walk: it leaves out names that are not UTF-8.
            result += RawPath.files(under: bytes, extensions: credentialExtensions).map(RawPath.path(for:)).sorted()
        }
        return result
    }
}
