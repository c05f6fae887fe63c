// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import ArgumentParser

/// `apnskit p12 create`: certificate + key (+ chain) into a .p12. Modern AES by default;
/// `--legacy` writes what macOS Keychain can import.
struct P12Create: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Bundle a certificate, its key and an optional chain into a .p12.",
        discussion: """
        Examples:
          apnskit p12 create cert.pem key.pem --passout env:P12_PASS -o push.p12
          apnskit p12 create apns.pem --legacy --passout env:P12_PASS -o for-keychain.p12
        """
    )

    @Argument(help: ArgumentHelp("Certificate (PEM or DER) and key files, or one combined PEM.", valueName: "FILE"))
    var inputs: [String]

    @Option(name: .long, help: ArgumentHelp("Intermediate certificates to include (repeatable).", valueName: "PEM"))
    var chain: [String] = []

    @Flag(name: .long, help: "Use RC2-40/3DES with a SHA-1 MAC, which macOS Keychain imports (OpenSSL 3's AES files it rejects as a wrong password).")
    var legacy = false

    @Option(name: .long, help: ArgumentHelp("Passphrase for the .p12: env:VAR, file:PATH, fd:N, stdin, pass:TEXT or empty.", valueName: "SRC"))
    var passout: String?

    @Option(name: .long, help: "Friendly name shown by Keychain (default: the certificate's CN).")
    var name: String?

    @Option(name: [.short, .customLong("out")], help: ArgumentHelp("Where to write the .p12 (0600; - for stdout).", valueName: "PATH"))
    var out: String

    @OptionGroup var passin: PassinOption
    @OptionGroup var choice: IdentityChoiceOption
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if inputs.isEmpty || inputs.count > 2 { throw ValidationError("Give a certificate and a key file, or one combined PEM.") }
    }

    func run() throws {
        common.apply()
        try SecureFileWriter.preflight(out, force: common.force)
        let identity = try IdentityLoader.load(inputs, passphrases: passin.supplier(), identity: choice.selector)
        let extra = try IdentityLoader.chain(chain)
        let passphrase = try PassphraseSupplier.newPassphrase(source: PassphraseSources.parse(passout, option: "--passout"), optionName: "--passout", prompt: TerminalPrompt.read, for: displayName(out))
        let bytes = try PKCS12.create(certificate: identity.certificate, privateKey: identity.privateKey,
                                      chain: identity.chain + extra, passphrase: passphrase,
                                      format: legacy ? .legacy : .modern, friendlyName: name)
        try SecureFileWriter.write(bytes, to: out, sensitivity: .secret, force: common.force)
        let format = legacy ? "legacy RC2-40/3DES, SHA-1 MAC: imports into macOS Keychain" : "AES-256-CBC, SHA-256 MAC"
        Summaries.report("Wrote \(Summaries.outputName(out)) (\(format)\(Summaries.modeSuffix(out))) with \(Summaries.certificate(identity.certificate)).", stdoutIsData: out == "-")
    }
}
