// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import ArgumentParser

/// `apnskit p12 split`: what `openssl pkcs12 -legacy -clcerts -nokeys` / `-nocerts -nodes` /
/// `-cacerts` do, in one command, for Keychain's legacy RC2/3DES exports and modern AES ones.
struct P12Split: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Extract the certificate, private key and chain of a .p12 as PEM.",
        discussion: """
        Reads Keychain's legacy exports (RC2-40/3DES) and OpenSSL 3's AES ones without extra \
        flags, and .p12 files that hold only the certificate or only the key. A .p12 with several \
        key + certificate pairs is refused until --identity picks one (apnskit inspect lists \
        them); the other pairs' certificates are never written as chain.

        Examples:
          apnskit p12 split Certificates.p12 --passin env:P12_PASS --cert-out cert.pem --key-out key.pem
          apnskit p12 split Certificates.p12 --passin stdin --cert-out cert.pem --chain-out chain.pem
          apnskit p12 split team.p12 --passin env:P12_PASS --identity 2 --cert-out cert.pem --key-out key.pem
        """
    )

    @Argument(help: ArgumentHelp("The .p12/.pfx file.", valueName: "P12"))
    var input: String

    @Option(name: .customLong("cert-out"), help: ArgumentHelp("Where to write the certificate PEM.", valueName: "PATH"))
    var certOut: String?

    @Option(name: .customLong("key-out"), help: ArgumentHelp("Where to write the private key PEM (0600).", valueName: "PATH"))
    var keyOut: String?

    @Option(name: .customLong("chain-out"), help: ArgumentHelp("Where to write intermediate certificates, if the .p12 has any.", valueName: "PATH"))
    var chainOut: String?

    @Option(name: .long, help: ArgumentHelp("Encrypt the written key with this passphrase source (AES-256 PKCS#8).", valueName: "SRC"))
    var passout: String?

    @Flag(name: .long, help: "Write the key in traditional PKCS#1/SEC1 form (unencrypted only).")
    var traditional = false

    @OptionGroup var choice: IdentityChoiceOption

    @OptionGroup var passin: PassinOption
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if certOut == nil && keyOut == nil && chainOut == nil {
            throw ValidationError("Give at least one of --cert-out, --key-out, --chain-out.")
        }
        if traditional && passout != nil { throw ValidationError("--traditional writes unencrypted keys only; drop --passout or --traditional.") }
        let stdoutCount = [certOut, keyOut, chainOut].filter { $0 == "-" }.count
        if stdoutCount > 1 { throw ValidationError("Only one output can be standard output (-).") }
    }

    func run() throws {
        common.apply()
        try SecureFileWriter.preflight([("--cert-out", certOut), ("--key-out", keyOut), ("--chain-out", chainOut)], force: common.force)
        let label = displayName(input)
        let bytes = try CredentialFile.readCredential(input)
        guard PKCS12.isPKCS12(bytes) else {
            let contents = try? CredentialFile.load(bytes: bytes, label: label, passphrases: .none)
            let what = contents.map { "holds \($0.summary)" } ?? "is not a PKCS#12 file"
            throw APNsCredentialError(.wrongKind, "\(label) \(what), not a PKCS#12 (.p12) archive; use import-cer or combine for PEM/DER files.")
        }
        let contents = try PKCS12.parse(bytes, label: label, passphrases: passin.supplier())
            .select(choice.selector, label: label)
        if keyOut != nil && contents.privateKey == nil {
            throw APNsCredentialError(.wrongKind, "\(label) holds no private key (it was exported as a certificate only); export the key from Keychain too, or drop --key-out.")
        }
        if certOut != nil && contents.certificate == nil {
            throw APNsCredentialError(.wrongKind, "\(label) holds no certificate (it was exported as a key only); export the certificate too, or drop --cert-out.")
        }
        var keyPEM: [UInt8]?
        if let key = contents.privateKey, let keyOut {
            let passphrase = try passout.map { _ in try PassphraseSupplier.newPassphrase(source: PassphraseSources.parse(passout, option: "--passout"), optionName: "--passout", prompt: TerminalPrompt.read, for: displayName(keyOut)) }
            keyPEM = traditional ? try key.traditionalPEM() : try key.pkcs8PEM(encryptedWith: passphrase)
        }
        let stdoutIsData = [certOut, keyOut, chainOut].contains("-")
        if let certificate = contents.certificate, let certOut {
            try SecureFileWriter.write(try certificate.pem(), to: certOut, sensitivity: .public, force: common.force)
            Summaries.report("Wrote certificate to \(Summaries.outputName(certOut)): \(Summaries.certificate(certificate))", stdoutIsData: stdoutIsData)
        }
        if let keyPEM, let keyOut, let key = contents.privateKey {
            try SecureFileWriter.write(keyPEM, to: keyOut, sensitivity: .secret, force: common.force)
            let matchNote = contents.certificate.map { key.matches($0) ? ", matches the certificate" : ", does NOT match the certificate" } ?? ""
            Summaries.report("Wrote \(key.summary) private key to \(Summaries.outputName(keyOut)) (\(passout == nil ? "unencrypted" : "encrypted")\(Summaries.modeSuffix(keyOut))\(matchNote)).", stdoutIsData: stdoutIsData)
        }
        if let chainOut {
            if contents.chain.isEmpty {
                Summaries.report("\(label) holds no chain certificates; \(displayName(chainOut)) not written.", stdoutIsData: stdoutIsData)
            } else {
                var pem: [UInt8] = []
                for certificate in contents.chain { pem += try certificate.pem() }
                try SecureFileWriter.write(pem, to: chainOut, sensitivity: .public, force: common.force)
                Summaries.report("Wrote \(contents.chain.count) chain certificate(s) to \(Summaries.outputName(chainOut)).", stdoutIsData: stdoutIsData)
            }
        }
    }
}
