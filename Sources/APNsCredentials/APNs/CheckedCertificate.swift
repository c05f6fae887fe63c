// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import APNsProtocol
import Foundation

/// One certificate of a checked file, as monitoring needs it: who it is for and when it
/// stops working. A slim copy of `APNsCertificateInfo`, so `check --format json` stays short
/// and per-certificate reports (Prometheus gauges) need not re-read the file.
package struct CheckedCertificate: Sendable, Codable, Equatable {
    package let commonName: String?
    package let bundleID: String?
    package let teamID: String?
    package let type: APNsCertificateType
    package let environments: [APNsEnvironment]
    package let notBefore: Date
    package let notAfter: Date
    package let serialNumber: String
    package let sha256Fingerprint: String
    /// The certificate the file is about (the others are its chain).
    package let isLeaf: Bool
    /// Within its validity period at the time of the check.
    package let isCurrentlyValid: Bool
    /// What the issuer said about it, when `check --revocation` asked (leaf identities only).
    package var revocation: RevocationRecord? = nil

    init(_ info: APNsCertificateInfo, isLeaf: Bool, now: Date) {
        commonName = info.commonName
        bundleID = info.bundleID
        teamID = info.teamID
        type = info.type
        environments = info.environments
        notBefore = info.notBefore
        notAfter = info.notAfter
        serialNumber = info.serialNumber
        sha256Fingerprint = info.sha256Fingerprint
        self.isLeaf = isLeaf
        isCurrentlyValid = info.notBefore <= now && now < info.notAfter
    }

    /// Every certificate of a report, once each: a file that repeats a certificate (a chain
    /// pasted twice) would otherwise give two series with the same labels.
    static func all(in report: CredentialReport, now: Date) -> [CheckedCertificate] {
        var seen: Set<String> = []
        var result: [CheckedCertificate] = []
        for (index, info) in report.certificates.enumerated() where seen.insert(info.sha256Fingerprint).inserted {
            result.append(CheckedCertificate(info, isLeaf: index == report.leafIndex, now: now))
        }
        return result
    }
}
