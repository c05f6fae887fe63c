// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation

/// The human form of an inspect report: the summary first, then aligned facts, then
/// findings marked so they stand out when scanning.
enum InspectText {
    static func lines(_ report: CredentialReport) -> [String] {
        var out = ["\(displayName(report.path)): \(report.summary)"]
        if let error = report.error {
            out.append("  error: \(CredentialErrorText.sentence(report: error, kind: report.errorKind))")
            return out
        }
        func fact(_ label: String, _ value: String) { out.append("  " + (label + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + value) }

        if let leaf = report.leaf {
            if leaf.isAPNs {
                fact("Type", "\(leaf.typeDescription) [\(leaf.type.rawValue)]")
                fact("Bundle id", leaf.bundleID ?? "(none)")
                fact("Team id", leaf.teamID ?? "(none)")
                fact("Organisation", leaf.organization ?? "(none)")
                let source = leaf.environmentSource == .commonName ? " (from the name; no extensions)" : ""
                fact("Environments", (leaf.environments.isEmpty ? "none" : leaf.environments.map(\.rawValue).joined(separator: ", ")) + source)
                if let topics = leaf.topics {
                    fact("Topics", topics.isEmpty ? "(empty list)" : topics.map { "\($0.topic) (\($0.kinds.joined(separator: ", ")))" }.joined(separator: ", "))
                } else if leaf.topicsError != nil {
                    fact("Topics", "MALFORMED extension")
                } else {
                    fact("Topics", leaf.effectiveTopics.joined(separator: ", ") + " (bundle id; no topics extension)")
                }
            } else {
                fact("Subject", leaf.subject)
                if leaf.isCA { fact("Type", "CA certificate") }
            }
            fact("Valid", "\(day(leaf.notBefore)) to \(day(leaf.notAfter)) (\(daysText(leaf.daysLeft)))")
            fact("Issuer", leaf.issuer)
            let keyMatch = leaf.keyMatches.map { $0 ? " (private key matches)" : " (private key does NOT match)" } ?? ""
            fact("Key", leaf.keySummary + keyMatch)
            fact("Serial", leaf.serialNumber)
            fact("SHA-1", leaf.sha1Fingerprint)
            fact("SHA-256", leaf.sha256Fingerprint)
            let identityCertificates = Set(report.identities.map(\.certificateIndex))
            for (index, other) in report.certificates.enumerated() where index != report.leafIndex && !identityCertificates.contains(index) {
                fact("Chain", "\(other.displayName), until \(day(other.notAfter))")
            }
        }
        if report.identities.count > 1 {
            for identity in report.identities {
                let certificate = report.certificates[identity.certificateIndex]
                let key = report.privateKeys[identity.keyIndex]
                let name = identity.friendlyName.map { "\"\($0)\", " } ?? ""
                let keyID = identity.localKeyID.map { ", localKeyId \($0)" } ?? ""
                fact("Identity \(identity.number)", "\(name)\(certificate.subject), \(key.summary) key matches, until \(day(certificate.notAfter))\(keyID)")
            }
        }
        for key in report.privateKeys where report.leaf == nil {
            fact("Key", key.summary + (key.encrypted ? " (encrypted)" : ""))
        }
        if let authKey = report.authKey {
            fact("Key id", authKey.keyID ?? "(not in the file name)")
            fact("Use", authKey.usable ? "token auth (ES256 JWT); does not expire" : "NOT usable for token auth")
        }
        for request in report.requests {
            fact("Subject", request.subject)
            fact("Key", request.keySummary + (request.matchesKey.map { $0 ? " (private key matches)" : " (private key does NOT match)" } ?? ""))
            fact("Signature", request.signatureValid ? "valid" : "INVALID")
        }
        if let profile = report.profile { out += ProfileText.lines(profile) }
        for (about, finding) in report.attributedFindings {
            let mark = finding.severity == .error ? "!! " : finding.severity == .warning ? "!  " : "   "
            out.append("  \(mark)\(finding.severity.rawValue): \(about.map { "\($0): " } ?? "")\(finding.message)")
        }
        return out
    }

    static func day(_ date: Date) -> String { APNsCertificateInfo.day(date) }

    static func daysText(_ days: Int) -> String {
        days < 0 ? "expired \(-days) days ago" : "\(days) days left"
    }
}
