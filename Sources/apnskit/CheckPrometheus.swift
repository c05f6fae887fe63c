// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation

/// `check --format prometheus`: the Prometheus text exposition format (version 0.0.4), for
/// node_exporter's textfile collector. One series per certificate and per file, no sample
/// timestamps (the collector refuses them), HELP and TYPE once per metric.
///
/// Per certificate (every certificate of every file, chain included, labelled `leaf`):
/// `apns_certificate_not_before_seconds`, `apns_certificate_not_after_seconds`,
/// `apns_certificate_valid` (1 inside its validity period, else 0). Per file:
/// With `--revocation`, per push certificate asked about: `apns_certificate_revoked` (1 revoked,
/// 0 not; absent when there was no answer) and
/// `apns_certificate_revocation_status{status=good|revoked|unknown|unreachable|invalid|not_checked}`.
/// `apns_credential_check_status{status=ok|warn|fail|unreadable}` (1 for the file's status, 0
/// for the others, so an alert can match one state). Per run:
/// `apns_credential_check_timestamp_seconds`, so an alert notices a cron job that stopped.
enum CheckPrometheus {
    static let statuses: [CheckResult.Status] = [.ok, .warn, .fail, .unreadable]
    static let revocationStatuses = ["good", "revoked", "unknown", "unreachable", "invalid", "not_checked"]

    static func render(_ checked: [CheckResult], now: Date) -> String {
        // A file named twice (itself and through its folder) would repeat its series, and
        // node_exporter rejects a textfile with duplicate series.
        var seen: Set<String> = []
        let results = checked.filter { seen.insert($0.path).inserted }
        let certificates = results.flatMap { result in result.certificates.map { (result.path, $0) } }
        var text = ""
        text += family("apns_certificate_not_before_seconds", "Start of the certificate's validity period, in seconds since the Unix epoch.",
                       certificates.map { (labels(file: $0.0, $0.1), seconds($0.1.notBefore)) })
        text += family("apns_certificate_not_after_seconds", "End of the certificate's validity period (expiry), in seconds since the Unix epoch.",
                       certificates.map { (labels(file: $0.0, $0.1), seconds($0.1.notAfter)) })
        text += family("apns_certificate_valid", "1 when the certificate was inside its validity period at the check, else 0.",
                       certificates.map { (labels(file: $0.0, $0.1), $0.1.isCurrentlyValid ? "1" : "0") })
        let asked = certificates.filter { $0.1.revocation != nil }
        text += family("apns_certificate_revoked", "1 when the certificate's issuer says it was revoked, 0 when it says it was not (check --revocation; absent when it could not be asked).",
                       asked.compactMap { pair in
                           guard let status = pair.1.revocation?.status, status == "good" || status == "revoked" else { return nil }
                           return (labels(file: pair.0, pair.1), status == "revoked" ? "1" : "0")
                       })
        text += family("apns_certificate_revocation_status",
                       "The revocation check's answer: 1 for its status (good, revoked, unknown, unreachable, invalid, not_checked), 0 for the others.",
                       asked.flatMap { pair in
                           Self.revocationStatuses.map { status in
                               (labels(file: pair.0, pair.1, extra: [("status", status)]), pair.1.revocation?.status == status ? "1" : "0")
                           }
                       })
        let statusSamples = results.flatMap { result in
            statuses.map { status in
                (labelSet([("file", result.path), ("status", status.rawValue.lowercased())]), result.status == status ? "1" : "0")
            }
        }
        text += family("apns_credential_check_status",
                       "apnskit check's verdict on the credential file: 1 for its status (ok, warn, fail, unreadable), 0 for the others.",
                       statusSamples)
        text += family("apns_credential_check_timestamp_seconds", "When apnskit check ran, in seconds since the Unix epoch.",
                       [("", seconds(now))])
        return text
    }

    static func family(_ name: String, _ help: String, _ samples: [(labels: String, value: String)]) -> String {
        var text = "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
        for sample in samples { text += "\(name)\(sample.labels) \(sample.value)\n" }
        return text
    }

    static func labels(file: String, _ certificate: CheckedCertificate, extra: [(String, String)] = []) -> String {
        labelSet([
            ("file", file),
            ("common_name", certificate.commonName ?? ""),
            ("bundle_id", certificate.bundleID ?? ""),
            ("team_id", certificate.teamID ?? ""),
            ("environment", certificate.environments.map(\.rawValue).joined(separator: ",")),
            ("type", certificate.type.rawValue),
            ("serial", certificate.serialNumber),
            ("leaf", certificate.isLeaf ? "true" : "false"),
        ] + extra)
    }

    /// `{name="value",...}`; values escape backslash, double quote and line feed, as the
    /// format requires.
    static func labelSet(_ pairs: [(String, String)]) -> String {
        let escaped = pairs.map { name, value in
            // Other control characters (CR, TAB, ESC from a file name) are valid in a label
            // but break line-based readers: written as the text \xHH, then escaped as text.
            let text = ControlCharacters.hexEscaped(value, keeping: ["\n"]).replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
            return "\(name)=\"\(text)\""
        }
        return "{" + escaped.joined(separator: ",") + "}"
    }

    static func seconds(_ date: Date) -> String { String(Int(date.timeIntervalSince1970.rounded(.down))) }
}
