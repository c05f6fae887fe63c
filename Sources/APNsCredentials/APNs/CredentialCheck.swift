import Foundation

/// What `apnskit check` demands of every file (its flags).
public struct CheckPolicy: Sendable {
    /// A certificate expiring within this many days fails.
    public var minimumDays: Int
    public var environment: APNsEnvironment?
    public var topic: String?
    /// Certificates must come with their private key (combined PEM, p12).
    public var requireKey: Bool
    /// Chains are verified against this; without it every certificate gets a warning.
    public var trust: TrustStore?
    public var trustLabel: String?

    public init(minimumDays: Int = 30, environment: APNsEnvironment? = nil, topic: String? = nil,
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
public struct CheckResult: Sendable, Codable {
    public enum Status: String, Sendable, Codable {
        case ok = "OK", warn = "WARN", fail = "FAIL", unreadable = "UNREADABLE"
    }

    public let path: String
    public let status: Status
    /// What the file is (the inspect summary, with the leaf's identity).
    public let summary: String
    /// Why it is not OK, most important first; empty for OK.
    public let reasons: [String]
    /// Leaf certificate facts, when there is one.
    public let bundleID: String?
    public let type: APNsCertificateType?
    public let environments: [APNsEnvironment]?
    public let notAfter: Date?
    public let daysLeft: Int?
    /// Only for provisioning profiles: what the profile says (as in `inspect`).
    public internal(set) var profile: ProvisioningProfileInfo? = nil

    /// The same file with another verdict (the profile cross-check adds its failures).
    func replacing(status: Status, reasons: [String]) -> CheckResult {
        CheckResult(path: path, status: status, summary: summary, reasons: reasons, bundleID: bundleID, type: type,
                    environments: environments, notAfter: notAfter, daysLeft: daysLeft)
    }
}

/// The CI gate: turns each file's inspection into OK / WARN / FAIL / UNREADABLE under a policy.
public enum CredentialChecker {
    public static func check(_ path: String, policy: CheckPolicy, passphrases: PassphraseSupplier, now: Date = Date()) -> CheckResult {
        let (report, contents) = CredentialInspector.inspectLoaded(path, passphrases: passphrases, extraKey: nil, now: now,
                                                                   expiryWarningDays: policy.minimumDays, profileTrust: policy.trust)
        guard let contents else {
            return CheckResult(path: path, status: .unreadable, summary: "unreadable", reasons: [report.error ?? "unreadable"],
                               bundleID: nil, type: nil, environments: nil, notAfter: nil, daysLeft: nil)
        }
        var failures: [String] = []
        var warnings: [String] = []
        var summary = report.summary

        if let leafIndex = report.leafIndex {
            let leaf = report.certificates[leafIndex]
            summary += leaf.isAPNs ? " for \(leaf.bundleID ?? "?") (\(leaf.type.rawValue))" : " (\(leaf.commonName ?? leaf.subject))"
            let toCheck = leaf.isCA ? report.certificates : [leaf]
            for info in toCheck {
                let name = leaf.isCA ? "\(info.commonName ?? info.subject): " : ""
                if info.notAfter <= now {
                    failures.append("\(name)expired on \(APNsCertificateInfo.day(info.notAfter))")
                } else if info.notBefore > now {
                    failures.append("\(name)not valid until \(APNsCertificateInfo.day(info.notBefore))")
                } else if info.daysLeft < policy.minimumDays {
                    failures.append("\(name)expires in \(info.daysLeft) days on \(APNsCertificateInfo.day(info.notAfter)) (--min-days \(policy.minimumDays))")
                }
            }
            if !leaf.isCA {
                if let error = leaf.topicsError {
                    failures.append("topics extension is malformed: \(error)")
                }
                if let environment = policy.environment, !leaf.environments.contains(environment) {
                    let has = leaf.environments.isEmpty ? "no APNs environment" : leaf.environments.map(\.rawValue).joined(separator: " + ") + " only"
                    failures.append("not valid for \(environment.rawValue) (\(has))")
                }
                if let topic = policy.topic, leaf.covers(topic: topic) == false {
                    let covered = leaf.effectiveTopics.isEmpty ? "none" : leaf.effectiveTopics.joined(separator: ", ")
                    failures.append("topic \(topic) not covered (covers: \(covered))")
                }
                if leaf.keyMatches == false {
                    failures.append("private key does not match the certificate")
                } else if leaf.keyMatches == nil && policy.requireKey {
                    failures.append("no private key in the file (--require-key)")
                }
                if !leaf.isAPNs {
                    warnings.append("not an Apple push certificate")
                }
            }
            if let trust = policy.trust {
                let certificate = contents.certificates[leafIndex]
                var others = contents.certificates
                others.remove(at: leafIndex)
                if let failure = trust.verificationFailure(certificate, intermediates: others) {
                    failures.append("chain does not verify to \(policy.trustLabel ?? "the CA file"): \(failure)")
                }
            } else {
                warnings.append("chain not checked (no --ca-file)")
            }
        } else if report.kind == .authKey {
            for finding in report.findings {
                if finding.severity == .error { failures.append(finding.message) }
                if finding.severity == .warning { warnings.append(finding.message) }
            }
        } else if let profile = report.profile {
            return ProfileCheck.result(path, report.summary, profile, policy: policy, now: now)
        } else if report.kind == .certificateRequest {
            warnings.append("a certificate signing request, not a certificate")
        } else if report.kind == .other {
            warnings.append("no certificate, private key or CSR in the file")
        }

        let status: CheckResult.Status = !failures.isEmpty ? .fail : (!warnings.isEmpty ? .warn : .ok)
        let leaf = report.leaf
        return CheckResult(path: path, status: status, summary: summary, reasons: failures + warnings,
                           bundleID: leaf?.bundleID, type: leaf?.type, environments: leaf?.environments,
                           notAfter: leaf?.notAfter, daysLeft: leaf?.daysLeft)
    }

    /// The file extensions a folder walk picks up.
    public static let credentialExtensions: Set<String> = Set(["pem", "cer", "crt", "p12", "pfx", "p8"]).union(ProvisioningProfileFile.extensions)

    /// Expands folders (recursively, sorted, credential extensions only); files given by name
    /// are kept whatever their extension. Missing paths are kept so they report as unreadable.
    public static func expand(_ paths: [String]) -> [String] {
        var result: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                result.append(path)
                continue
            }
            var found: [String] = []
            if let walker = FileManager.default.enumerator(atPath: path) {
                while let relative = walker.nextObject() as? String {
                    let ext = (relative as NSString).pathExtension.lowercased()
                    guard credentialExtensions.contains(ext) else { continue }
                    let full = (path as NSString).appendingPathComponent(relative)
                    var isFolder: ObjCBool = false
                    if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
                        found.append(full)
                    }
                }
            }
            result += found.sorted()
        }
        return result
    }
}
