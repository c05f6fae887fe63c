// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import ArgumentParser
import Foundation

/// `apnskit inspect FILE...`: what each file is and what is off with it.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Say what credential files are: type, bundle id, team, environments, topics, validity, key match.",
        discussion: """
        Reads PEM or DER certificates (.cer), combined PEM, .p12, private keys, CSRs and \
        AuthKey_<KEYID>.p8 token keys, and provisioning profiles (.mobileprovision, \
        .provisionprofile; --ca-file checks who signed them). Exit status: 0 nothing wrong; 1 a problem was found \
        (expired, not yet valid, key mismatch, malformed topics); 3 a file could not be read. \
        JSON schema: docs/inspect-json.md.
        """
    )

    @Argument(help: "Files to inspect (- for standard input).")
    var files: [String]

    @Option(help: "Passphrase source for encrypted keys and .p12: env:VAR, file:PATH, fd:N, stdin, pass:TEXT, empty.")
    var passin: String?

    @Option(help: "A private key file to match against the certificates and CSRs.")
    var key: String?

    @Option(help: "text or json.")
    var format: String = "text"

    @Option(help: "CA bundle a provisioning profile's signer must chain to (Apple's root for real profiles).")
    var caFile: String?

    func validate() throws {
        guard OutputFormat(rawValue: format) != nil else { throw ValidationError("--format must be text or json.") }
        guard !files.isEmpty else { throw ValidationError("Give at least one file to inspect.") }
    }

    func run() throws {
        let source = try passin.map(PassphraseSource.init(parsing:))
        if source?.isVisibleToOtherProcesses == true {
            Output.warning("pass: puts the passphrase where other processes can see it; prefer env: or file:.")
        }
        let passphrases = PassphraseSupplier(source: source, optionName: "--passin", prompt: TerminalPrompt.read)
        let extraKey = try key.map { try IdentityLoader.privateKey($0, passphrases: passphrases) }
        let trust = try caFile.map { try TrustStore(caFile: $0) }
        let reports = files.map { CredentialInspector.inspect($0, passphrases: passphrases, extraKey: extraKey, profileTrust: trust) }
        if format == OutputFormat.json.rawValue {
            try JSONOutput.print(InspectJSON(schemaVersion: 1, files: reports))
        } else {
            for (index, report) in reports.enumerated() {
                if index > 0 { Output.line("") }
                for line in InspectText.lines(report) { Output.line(line) }
            }
        }
        if reports.contains(where: { $0.kind == .unreadable }) { throw ExitCode(ExitStatus.input) }
        if reports.contains(where: { $0.worstSeverity == .error }) { throw ExitCode(ExitStatus.problem) }
    }
}

/// The top level of `inspect --format json`.
struct InspectJSON: Encodable {
    let schemaVersion: Int
    let files: [CredentialReport]
}
