// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import ArgumentParser

/// `apnskit combine`: the classic guide's `cat cert.pem key.pem > apns.pem`, except that it
/// accepts DER and encrypted keys, puts blocks in the order senders expect (certificate,
/// chain, unencrypted key) and refuses a key that does not belong to the certificate.
struct Combine: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join a certificate and its key (and chain) into one combined PEM.",
        discussion: """
        Examples:
          apnskit combine aps_development.cer push.key -o apns-dev.pem
          apnskit combine cert.pem key-encrypted.pem --passin env:KEY_PASS --chain wwdr.pem -o apns.pem
        """
    )

    @Argument(help: ArgumentHelp("The certificate (PEM or DER).", valueName: "CERT"))
    var certificate: String

    @Argument(help: ArgumentHelp("Its private key (PEM or DER, encrypted or not).", valueName: "KEY"))
    var key: String

    @Option(name: .long, help: ArgumentHelp("Intermediate certificates to include after the certificate (repeatable).", valueName: "PEM"))
    var chain: [String] = []

    @Option(name: [.short, .customLong("out")], help: ArgumentHelp("Where to write the combined PEM (0600; - for stdout).", valueName: "PATH"))
    var out: String

    @OptionGroup var passin: PassinOption
    @OptionGroup var common: CommonOptions

    func run() throws {
        common.apply()
        try SecureFileWriter.preflight(out, force: common.force)
        let (cert, extraInCertFile) = try IdentityLoader.certificate(certificate)
        let privateKey = try IdentityLoader.privateKey(key, passphrases: passin.supplier())
        let identity = try APNsIdentity(certificate: cert, privateKey: privateKey,
                                    chain: extraInCertFile + IdentityLoader.chain(chain),
                                    certificateLabel: displayName(certificate), keyLabel: displayName(key))
        try SecureFileWriter.write(try identity.combinedPEM(), to: out, sensitivity: .secret, force: common.force)
        let chainNote = identity.chain.isEmpty ? "" : " + \(identity.chain.count) chain certificate(s)"
        Summaries.report("Wrote \(Summaries.outputName(out)) (certificate\(chainNote) + matching \(privateKey.summary) key, unencrypted\(Summaries.modeSuffix(out))): \(Summaries.certificate(cert))", stdoutIsData: out == "-")
    }
}
