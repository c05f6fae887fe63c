// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import ArgumentParser

/// `apnskit keygen`: a new private key, as `openssl genpkey` makes one, written 0600.
struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate a private key (RSA-2048 by default) as PKCS#8 PEM.",
        discussion: """
        Examples:
          apnskit keygen -o push.key
          apnskit keygen --type ec256 -o push-ec.key
          apnskit keygen --encrypt --passout env:KEY_PASS -o push.key
        """
    )

    @Option(name: .long, help: "Key type: rsa2048 (Apple's default), rsa4096 or ec256.")
    var type: PrivateKey.Kind = .rsa2048

    @Flag(name: .long, help: "Encrypt the key (PKCS#8, AES-256-CBC) with the --passout passphrase.")
    var encrypt = false

    @Option(name: .long, help: ArgumentHelp("Passphrase for --encrypt: env:VAR, file:PATH, fd:N, stdin or pass:TEXT. Implies --encrypt.", valueName: "SRC"))
    var passout: String?

    @Flag(name: .long, help: "Write the traditional PKCS#1/SEC1 form instead of PKCS#8 (unencrypted only).")
    var traditional = false

    @Option(name: [.short, .customLong("out")], help: ArgumentHelp("Where to write the key (- for stdout).", valueName: "PATH"))
    var out: String

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if traditional && (encrypt || passout != nil) {
            throw ValidationError("--traditional writes unencrypted keys only; drop --encrypt/--passout or --traditional.")
        }
    }

    func run() throws {
        common.apply()
        try SecureFileWriter.preflight(out, force: common.force)
        let passphrase = (encrypt || passout != nil)
            ? try PassphraseSupplier.newPassphrase(source: PassphraseSources.parse(passout, option: "--passout"), optionName: "--passout", prompt: TerminalPrompt.read, for: displayName(out))
            : nil
        let key = try PrivateKey.generate(type)
        let pem = traditional ? try key.traditionalPEM() : try key.pkcs8PEM(encryptedWith: passphrase)
        try SecureFileWriter.write(pem, to: out, sensitivity: .secret, force: common.force)
        let form = traditional ? "traditional PEM" : (passphrase == nil ? "PKCS#8 PEM, unencrypted" : "PKCS#8 PEM, AES-256 encrypted")
        Summaries.report("Wrote \(key.summary) private key to \(Summaries.outputName(out)) (\(form)\(Summaries.modeSuffix(out))).", stdoutIsData: out == "-")
    }
}
