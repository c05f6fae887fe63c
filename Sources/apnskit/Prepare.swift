// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import ArgumentParser
import Foundation

/// `apnskit prepare`: the portal-to-PEM path in one step. Replaces the four commands of the
/// classic guide (`openssl pkcs12 -clcerts -nokeys`, `openssl pkcs12 -nocerts`, `openssl rsa`,
/// `cat`), and checks the result: key matches, certificate currently valid.
struct Prepare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn a .p12 (or .cer + key) into a checked combined PEM for APNs senders.",
        discussion: """
        Accepts one .p12 with certificate and key, the two .p12 files of the classic guide \
        (certificate-only and key-only, same passphrase), or a certificate plus key file. An \
        input with several key + certificate pairs is refused until --identity picks one.

        Examples:
          apnskit prepare Certificates.p12 --passin env:P12_PASS -o apns.pem
          apnskit prepare cert.p12 key.p12 --passin env:P12_PASS -o apns.pem
          apnskit prepare --cert aps_development.cer --key push.key -o apns.pem
          apnskit prepare team.p12 --passin env:P12_PASS --identity "Push A" -o apns.pem
        """
    )

    @Argument(help: ArgumentHelp("Input files: .p12, certificate, key, or a combined PEM.", valueName: "FILE"))
    var inputs: [String] = []

    @Option(name: .long, help: ArgumentHelp("The certificate (.cer DER or PEM).", valueName: "CER"))
    var cert: String?

    @Option(name: .long, help: ArgumentHelp("The private key for --cert.", valueName: "KEY"))
    var key: String?

    @Option(name: .long, help: ArgumentHelp("Intermediate certificates to include (repeatable).", valueName: "PEM"))
    var chain: [String] = []

    @OptionGroup var choice: IdentityChoiceOption

    @Flag(name: .customLong("allow-expired"), help: "Write the PEM even if the certificate is expired or not yet valid.")
    var allowExpired = false

    @Option(name: [.short, .customLong("out")], help: ArgumentHelp("Where to write the combined PEM (0600; - for stdout).", valueName: "PATH"))
    var out: String

    @OptionGroup var passin: PassinOption
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if inputs.isEmpty && cert == nil && key == nil {
            throw ValidationError("Give a .p12 file, or --cert and --key.")
        }
        if (cert == nil) != (key == nil) && inputs.isEmpty {
            throw ValidationError("--cert and --key go together; give both.")
        }
    }

    func run() throws {
        common.apply()
        try SecureFileWriter.preflight(out, force: common.force)
        let files = inputs + [cert, key].compactMap { $0 }
        let loaded = try IdentityLoader.load(files, passphrases: passin.supplier(), identity: choice.selector)
        let identity = try APNsIdentity(certificate: loaded.certificate, privateKey: loaded.privateKey,
                                    chain: loaded.chain + IdentityLoader.chain(chain))
        let now = Date()
        let certificate = identity.certificate
        let stdoutIsData = out == "-"
        // The same verdict as `check` ("a CA certificate with its private key"): APNs takes a
        // push certificate as the client certificate, never a CA, so the PEM would not work.
        if certificate.isCA {
            throw CommandFailure(message: "The certificate in \(files.map(displayName).joined(separator: ", ")) is a CA certificate (\(certificate.subject)), not an Apple push certificate; export the \"Apple Push Services\" certificate with its key from Keychain Access, or run prepare on the .cer Apple's portal issued with --cert and --key.", status: ExitStatus.problem)
        }
        if certificate.notAfter <= now || certificate.notBefore > now {
            let state = certificate.notAfter <= now ? "has expired" : "is not valid yet"
            guard allowExpired else {
                throw CommandFailure(message: "The certificate in \(files.map(displayName).joined(separator: ", ")) \(state) (\(Summaries.validity(certificate, now: now))); renew it on Apple's portal, or pass --allow-expired to write it anyway.", status: ExitStatus.problem)
            }
            Output.warning("the certificate \(state): \(Summaries.validity(certificate, now: now)).")
        }
        try SecureFileWriter.write(try identity.combinedPEM(), to: out, sensitivity: .secret, force: common.force)
        Summaries.report("Wrote \(Summaries.outputName(out)) (certificate\(identity.chain.isEmpty ? "" : " + \(identity.chain.count) chain") + matching \(identity.privateKey.summary) key, unencrypted\(Summaries.modeSuffix(out)))", stdoutIsData: stdoutIsData)
        Summaries.report("  subject: \(certificate.subject)", stdoutIsData: stdoutIsData)
        Summaries.report("  issuer:  \(certificate.issuer)", stdoutIsData: stdoutIsData)
        Summaries.report("  validity: \(Summaries.validity(certificate, now: now))", stdoutIsData: stdoutIsData)
    }
}
