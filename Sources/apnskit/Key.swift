// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import ArgumentParser

/// `apnskit key strip|encrypt`.
struct Key: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Remove or add a private key's passphrase.",
        subcommands: [KeyStrip.self, KeyEncrypt.self]
    )
}

/// `apnskit key strip`: what `openssl rsa -in key.pem -out key.pem` does in the classic guide,
/// for PKCS#1 `Proc-Type: 4,ENCRYPTED` and PKCS#8 `ENCRYPTED PRIVATE KEY` inputs alike.
struct KeyStrip: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strip",
        abstract: "Write a private key without its passphrase.",
        discussion: """
        Examples:
          apnskit key strip key-encrypted.pem --passin env:KEY_PASS -o key.pem
          apnskit key strip key-encrypted.pem --passin stdin --traditional -o key-rsa.pem
        """
    )

    @Argument(help: ArgumentHelp("The encrypted key (PEM or DER).", valueName: "KEY"))
    var input: String

    @Flag(name: .long, help: "Write the traditional PKCS#1/SEC1 form instead of PKCS#8.")
    var traditional = false

    @Option(name: [.short, .customLong("out")], help: ArgumentHelp("Where to write the key (0600; - for stdout).", valueName: "PATH"))
    var out: String

    @OptionGroup var passin: PassinOption
    @OptionGroup var common: CommonOptions

    func run() throws {
        common.apply()
        try SecureFileWriter.preflight(out, force: common.force)
        let (key, wasEncrypted) = try IdentityLoader.privateKeyFile(input, passphrases: passin.supplier())
        let pem = traditional ? try key.traditionalPEM() : try key.pkcs8PEM()
        try SecureFileWriter.write(pem, to: out, sensitivity: .secret, force: common.force)
        let note = wasEncrypted ? "" : " (the input was not encrypted)"
        Summaries.report("Wrote unencrypted \(key.summary) key to \(Summaries.outputName(out))\(Summaries.modeNote(out))\(note).", stdoutIsData: out == "-")
    }
}

/// `apnskit key encrypt`: AES-256 PKCS#8 with a new passphrase.
struct KeyEncrypt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Write a private key encrypted with a passphrase (PKCS#8, AES-256-CBC).",
        discussion: """
        Examples:
          apnskit key encrypt key.pem --passout env:KEY_PASS -o key-encrypted.pem
        """
    )

    @Argument(help: ArgumentHelp("The key (PEM or DER; if it is encrypted, --passin opens it).", valueName: "KEY"))
    var input: String

    @Option(name: .long, help: ArgumentHelp("The new passphrase: env:VAR, file:PATH, fd:N, stdin or pass:TEXT.", valueName: "SRC"))
    var passout: String?

    @Option(name: [.short, .customLong("out")], help: ArgumentHelp("Where to write the key (0600; - for stdout).", valueName: "PATH"))
    var out: String

    @OptionGroup var passin: PassinOption
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if passin.passin == "stdin" && passout == "stdin" {
            throw ValidationError("--passin and --passout cannot both read standard input; use fd:N or file:PATH for one.")
        }
    }

    func run() throws {
        common.apply()
        try SecureFileWriter.preflight(out, force: common.force)
        let key = try IdentityLoader.privateKey(input, passphrases: passin.supplier())
        let passphrase = try PassphraseSupplier.newPassphrase(source: PassphraseSources.parse(passout, option: "--passout"), optionName: "--passout", prompt: TerminalPrompt.read, for: displayName(out))
        try SecureFileWriter.write(try key.pkcs8PEM(encryptedWith: passphrase), to: out, sensitivity: .secret, force: common.force)
        Summaries.report("Wrote \(key.summary) key to \(Summaries.outputName(out)) (PKCS#8, AES-256-CBC encrypted\(Summaries.modeSuffix(out))).", stdoutIsData: out == "-")
    }
}
