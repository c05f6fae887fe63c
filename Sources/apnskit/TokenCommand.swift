// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import ArgumentParser
import Foundation

/// `apnskit token`: the Push Notifications Console's token tools, offline. By default it makes
/// a provider JWT for curl and other tools; `token inspect` says what is wrong with one.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Make a provider token (JWT) from a .p8 key, or inspect one.",
        subcommands: [TokenCreate.self, TokenInspect.self],
        defaultSubcommand: TokenCreate.self
    )
}

/// `apnskit token --auth-key AuthKey_KEYID.p8 --team-id T [--key-id K]`
struct TokenCreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Print a provider token signed with the .p8 key (the last line of standard output).",
        discussion: """
        The token is valid for an hour; APNs wants one token reused for 20 to 60 minutes. Use it \
        as the header `authorization: bearer <token>`, e.g.
          curl --http2 -H "authorization: bearer $(apnskit token --auth-key AuthKey_ABC123DEFG.p8 --team-id TEAM123456)" ...
        """
    )

    @Option(name: .customLong("auth-key"), help: ArgumentHelp("The AuthKey_KEYID.p8 file.", valueName: "FILE"))
    var authKey: String

    @Option(name: .customLong("key-id"), help: "The key's 10-character id (default: from the file name).")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Your 10-character team id.")
    var teamID: String

    @OptionGroup var passin: PassinOption

    func validate() throws {
        if keyID == nil && APNsTokenSigner.keyIDFromFileName(authKey) == nil {
            throw ValidationError("Cannot tell the key ID of \(authKey): its name is not AuthKey_<KEYID>.p8; pass --key-id.")
        }
    }

    func run() throws {
        let key = try IdentityLoader.privateKey(authKey, passphrases: try passin.supplier())
        let signer = try APNsTokenSigner(key: key, keyID: keyID ?? APNsTokenSigner.keyIDFromFileName(authKey) ?? "", teamID: teamID)
        Output.line(try signer.token())
    }
}

/// `apnskit token inspect JWT [--auth-key F] [--team-id T] [--format json]`
struct TokenInspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Say what is wrong with a provider token: structure, header, claims, age, and the signature against a key.",
        discussion: """
        Give the token itself, `bearer <token>`, or - to read it from standard input. Exit \
        status: 0 every check passed; 1 a check failed; 2 usage; 3 the key file is unreadable.
        """
    )

    @Argument(help: "The JWT (or - for standard input).")
    var token: String

    @Option(name: .customLong("auth-key"), help: ArgumentHelp("The AuthKey_KEYID.p8 the token should be signed with: checks the signature and the key id.", valueName: "FILE"))
    var authKey: String?

    @Option(name: .customLong("team-id"), help: "The team id the token should claim.")
    var teamID: String?

    @Option(help: "text or json.")
    var format: String = "text"

    @OptionGroup var passin: PassinOption

    func validate() throws {
        guard OutputFormat(rawValue: format) != nil else { throw ValidationError("--format must be text or json.") }
    }

    func run() throws {
        // Standard input is bounded like every other input (200 MB piped in once took 611 MB).
        let text = token == "-" ? String(decoding: try CredentialFile.readBytes("-", limit: CredentialFile.maximumSize, kind: "a provider token"), as: UTF8.self) : token
        let key = try authKey.map { try PublicKey(of: try IdentityLoader.privateKey($0, passphrases: try passin.supplier())) }
        let inspection = ProviderTokenInspection(text, key: key, keyFileID: authKey.flatMap(APNsTokenSigner.keyIDFromFileName),
                                                 expectedTeamID: teamID)
        if format == OutputFormat.json.rawValue {
            try JSONOutput.print(TokenInspectJSON(inspection))
        } else {
            for check in inspection.checks { Output.line("\(check.ok ? "ok     " : "PROBLEM") \(check.check): \(check.message)") }
            Output.line(inspection.isValid ? "The token is well-formed\(key == nil ? "" : " and signed by the given key")." : "The token would be refused by APNs.")
        }
        if !inspection.isValid { throw ExitCode(ExitStatus.problem) }
    }
}

/// `token inspect --format json`.
struct TokenInspectJSON: Encodable {
    let valid: Bool
    let keyId: String?
    let teamId: String?
    let issuedAt: Int?
    let ageSeconds: Int?
    let checks: [ProviderTokenInspection.Check]

    init(_ inspection: ProviderTokenInspection) {
        valid = inspection.isValid
        keyId = inspection.keyID
        teamId = inspection.teamID
        issuedAt = inspection.issuedAt
        ageSeconds = inspection.ageSeconds
        checks = inspection.checks
    }
}
