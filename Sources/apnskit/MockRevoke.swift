// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import ArgumentParser
import Foundation

/// `apnskit mock revoke CERT --ca DIR`: what revoking a certificate in the developer portal
/// does, for the mock CA: the OCSP responder and CRL of `mock serve` say "revoked" from then on.
struct MockRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a certificate the mock CA issued: its OCSP responder and CRL answer \"revoked\" from then on.",
        discussion: """
        Records the revocation in the CA folder's index.txt (openssl ca's format, so `openssl \
        ocsp -index DIR/index.txt` answers the same). A running `mock serve` answers from it at \
        once. Exit codes: 0 revoked, 2 usage, 3 the certificate or CA folder is unreadable, or \
        the certificate was not issued by this CA.

        Examples:
          apnskit mock revoke aps.cer --ca mock-ca
          apnskit mock revoke apns.pem --ca mock-ca --reason keyCompromise --date 2026-11-01
        """
    )

    @Argument(help: ArgumentHelp("The certificate to revoke (.cer, PEM, or a combined PEM).", valueName: "CERT"))
    var certificate: String

    @Option(help: "The mock CA folder made by `apnskit mock ca`.")
    var ca: String

    @Option(help: ArgumentHelp("RFC 5280 reason: \(RevocationReason.allCases.map(\.name).joined(separator: ", ")).", valueName: "REASON"))
    var reason: String?

    @Option(help: "When it was revoked (YYYY-MM-DD or ISO 8601; default: now).")
    var date: String?

    func validate() throws {
        if let reason, RevocationReason(name: reason) == nil {
            throw ValidationError("--reason '\(reason)' is not an RFC 5280 reason; use one of \(RevocationReason.allCases.map(\.name).joined(separator: ", ")).")
        }
    }

    func run() throws {
        let when = try date.map { try DateArgument.parse($0, option: "--date") } ?? Date()
        let authority = try MockCA.load(from: ca)
        let leaf = try IdentityLoader.certificate(certificate).0
        guard leaf.isIssued(by: authority.intermediate) else {
            throw APNsCredentialError(.wrongKind, "\(displayName(certificate)) was not issued by the mock CA in \(ca) (its issuer is \(leaf.issuer.description)); give a certificate `mock issue --ca \(ca)` made.")
        }
        try MockRevocationIndex(folder: ca).revoke(leaf, at: when, reason: reason.flatMap(RevocationReason.init(name:)))
        Output.line("Revoked \(leaf.subject.commonName ?? leaf.subject.description) (serial \(leaf.serialNumberHex)) on \(DateArgument.format(when))\(reason.map { " (\($0))" } ?? "")")
    }
}
