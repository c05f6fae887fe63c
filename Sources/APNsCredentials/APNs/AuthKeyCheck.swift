// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// `check`'s verdict on a token-auth signing key (`AuthKey_<KEYID>.p8`): OK only when it can
/// sign provider tokens APNs accepts, which takes an EC P-256 private key and the key's
/// 10-character id (the JWT's `kid`, apns-protocol.md §1). Apple puts the id only in the file
/// name, so a key read from a variable or standard input needs `--key-id`.
struct AuthKeyCheck {
    var failures: [String] = []
    var warnings: [String] = []
    var summary: String
    /// The id tokens will carry: the file name's, else `--key-id`.
    var keyID: String?

    /// Nil when the file is not a token key: neither named like one nor a lone private key
    /// given without a name (stdin, `env:VAR`) together with `--key-id`.
    init?(report: CredentialReport, contents: CredentialContents, path: String, policy: CheckPolicy) {
        let namelessKey = report.kind == .privateKey && contents.encoding != .pkcs12 && contents.certificates.isEmpty
            && CredentialInput.isNameless(path) && policy.keyID != nil
        guard report.kind == .authKey || namelessKey else { return nil }
        summary = report.summary
        // The inspector's own findings (curve, anything else it knows), except the missing
        // id: check decides that below, knowing --key-id.
        for finding in report.findings where finding.code != "noKeyID" {
            if finding.severity == .error { failures.append(finding.message) }
            if finding.severity == .warning { warnings.append(finding.message) }
        }
        if namelessKey, let key = contents.privateKeys.first {
            summary = "APNs auth key: \(key.summary)"
            if key.curveName != "P-256" {
                failures.append("APNs auth keys are EC P-256; this is \(key.summary), so APNs will reject tokens signed with it")
            }
        }
        let fromName = report.authKey?.keyID
        keyID = fromName ?? policy.keyID
        switch (fromName, policy.keyID) {
        case let (name?, given?) where name != given:
            failures.append("the file name says key id \(name) but \(policy.name(.keyID)) is \(given); tokens signed with the wrong id are rejected (InvalidProviderToken)")
        case (nil, nil):
            failures.append("no key id: the name does not carry it (Apple names the file AuthKey_<KEYID>.p8) and no \(policy.name(.keyID)) was given; token auth needs it")
        case (nil, let given?):
            summary += ", key id \(given) (\(policy.name(.keyID)))"
        default:
            break
        }
    }
}
