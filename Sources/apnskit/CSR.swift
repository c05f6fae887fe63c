// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import ArgumentParser

/// `apnskit csr`: what Keychain Access's "Request a Certificate From a Certificate Authority"
/// makes, without a Mac: a new key (or an existing one) and a SHA-256 CSR whose subject is
/// `emailAddress, CN, C`.
struct CSR: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "csr",
        abstract: "Create a certificate signing request for Apple's developer portal.",
        discussion: """
        Upload the CSR under Certificates > + > Apple Push Notification service SSL; keep the key.

        Examples:
          apnskit csr --email dev@example.com --common-name "Example Push" --key-out push.key --csr-out push.csr
          apnskit csr --email dev@example.com --common-name "Example Push" --key push.key --csr-out push.csr
        """
    )

    @Option(name: .long, help: "Your email address (Keychain's 'User Email Address').")
    var email: String

    @Option(name: .customLong("common-name"), help: "Name for the key pair (Keychain's 'Common Name').")
    var commonName: String

    @Option(name: .long, help: "Two-letter country code.")
    var country: String = "US"

    @Option(name: .long, help: ArgumentHelp("Use this existing private key instead of making a new one.", valueName: "KEY"))
    var key: String?

    @Option(name: .long, help: "Type of a new key: rsa2048 (Apple's default), rsa4096 or ec256.")
    var type: PrivateKey.Kind = .rsa2048

    @Option(name: .customLong("key-out"), help: ArgumentHelp("Where to write the new key (0600).", valueName: "PATH"))
    var keyOut: String?

    @Option(name: .customLong("csr-out"), help: ArgumentHelp("Where to write the CSR (- for stdout).", valueName: "PATH"))
    var csrOut: String

    @Option(name: .long, help: ArgumentHelp("Encrypt the new key with this passphrase source.", valueName: "SRC"))
    var passout: String?

    @OptionGroup var passin: PassinOption
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if key == nil && keyOut == nil { throw ValidationError("Give --key-out for the new key, or --key to use an existing one.") }
        if key != nil && keyOut != nil { throw ValidationError("--key uses an existing key; --key-out is only for a new key. Give one of them.") }
        if key != nil && passout != nil { throw ValidationError("--passout encrypts a new key; it does not apply with --key.") }
        if country.count != 2 || !country.allSatisfy({ $0.isASCII && $0.isLetter }) {
            throw ValidationError("--country must be a two-letter code such as US or DE, not '\(country)'.")
        }
        if !email.contains("@") { throw ValidationError("--email '\(email)' is not an email address.") }
        if commonName.isEmpty { throw ValidationError("--common-name must not be empty.") }
        if keyOut == "-" && csrOut == "-" { throw ValidationError("Only one of --key-out and --csr-out can be standard output.") }
    }

    func run() throws {
        common.apply()
        try SecureFileWriter.preflight([("--key-out", keyOut), ("--csr-out", csrOut)], force: common.force)
        let privateKey: PrivateKey
        var newKeyPassphrase: Passphrase?
        if let key {
            privateKey = try IdentityLoader.privateKey(key, passphrases: passin.supplier())
        } else {
            if passout != nil {
                newKeyPassphrase = try PassphraseSupplier.newPassphrase(source: PassphraseSources.parse(passout, option: "--passout"), optionName: "--passout", prompt: TerminalPrompt.read, for: displayName(keyOut ?? "the key"))
            }
            privateKey = try PrivateKey.generate(type)
        }
        let request = try CertificateSigningRequest(key: privateKey, subject: [
            .init(key: "emailAddress", value: email),
            .init(key: "CN", value: commonName),
            .init(key: "C", value: country.uppercased()),
        ])
        let stdoutIsData = csrOut == "-" || keyOut == "-"
        if let keyOut {
            try SecureFileWriter.write(try privateKey.pkcs8PEM(encryptedWith: newKeyPassphrase), to: keyOut, sensitivity: .secret, force: common.force)
            Summaries.report("Wrote \(privateKey.summary) private key to \(Summaries.outputName(keyOut))\(Summaries.modeNote(keyOut)); keep it: the certificate Apple issues works only with this key.", stdoutIsData: stdoutIsData)
        }
        try SecureFileWriter.write(try request.pem(), to: csrOut, sensitivity: .public, force: common.force)
        Summaries.report("Wrote CSR to \(Summaries.outputName(csrOut)) (\(request.subject), \(request.publicKeySummary), SHA-256); upload it to Apple's developer portal.", stdoutIsData: stdoutIsData)
    }
}
