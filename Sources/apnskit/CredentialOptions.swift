// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import ArgumentParser

/// IDENTITY and `--passin`: the client certificate a gateway command presents. `feedback` has
/// only this (the feedback service knows no token auth); `push` and `verify` wrap it in
/// `CredentialOptions`.
struct IdentityOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Identity files: combined PEM, certificate + key, or .p12.", valueName: "IDENTITY"))
    var files: [String] = []

    @OptionGroup var passin: PassinOption
    @OptionGroup var choice: IdentityChoiceOption
}

/// Certificate auth (IDENTITY) or token auth (`--auth-key`, `--key-id`, `--team-id`), checked and
/// loaded one way for `push` and `verify`: the same key file works, or fails with the same
/// sentence, in both.
struct CredentialOptions: ParsableArguments {
    @OptionGroup var certificate: IdentityOptions

    @Option(name: .customLong("auth-key"), help: ArgumentHelp("Token auth: the AuthKey_KEYID.p8 file.", valueName: "FILE"))
    var authKey: String?

    @Option(name: .customLong("key-id"), help: "Token auth: the key's 10-character id (default: from the file name).")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Token auth: your 10-character team id.")
    var teamID: String?

    @Option(name: .customLong("key-scope"), help: ArgumentHelp("Token auth: what the portal says the key is for: team, sandbox, production or topics:A,B; what APNs would refuse is refused here.", valueName: "SCOPE"))
    var keyScope: String?

    /// Rules that hold for every service; ArgumentParser runs this before the command's own checks.
    /// A missing key id is caught here, before any file is read, because the portal's file name
    /// carries it and only a renamed file needs `--key-id`.
    func validate() throws {
        if certificate.files.isEmpty && authKey == nil {
            throw ValidationError("Give the identity (combined PEM, certificate + key, or .p12) or --auth-key with --team-id.")
        }
        if let keyScope {
            if authKey == nil { throw ValidationError("--key-scope describes an --auth-key key; drop it with certificate auth.") }
            if TokenKeyScope(argument: keyScope) == nil {
                throw ValidationError("--key-scope '\(keyScope)' must be team, sandbox, production or topics:BUNDLE[,BUNDLE...].")
            }
        }
        guard let authKey else { return }
        if !certificate.files.isEmpty { throw ValidationError("Give either an identity (certificate auth) or --auth-key (token auth), not both.") }
        if teamID == nil { throw ValidationError("--auth-key needs --team-id.") }
        if keyID == nil && APNsTokenSigner.keyIDFromFileName(authKey) == nil {
            throw ValidationError("Cannot tell the key ID of \(authKey): its name is not AuthKey_<KEYID>.p8; pass --key-id.")
        }
    }

    /// Refuses, before connecting, a request APNs would refuse for the key's scope
    /// (`--key-scope`), with APNs' reason in the sentence (exit 1, as if APNs had answered).
    func checkKeyScope(environment: APNsEnvironment, topic: String?) throws {
        guard let scope = keyScope.flatMap(TokenKeyScope.init(argument:)), let refusal = scope.refusal(environment: environment, topic: topic) else { return }
        // The fix follows what the key is limited to: --environment cannot help a topic.
        let fix: String
        switch scope {
        case .environment(let allowed): fix = "Use a key for \(environment.rawValue) (or a team key), or --environment \(allowed.rawValue)."
        case .topics(let topics): fix = "Use a key whose topics include \(topic ?? "this topic") (or a team key), or --topic \(topics.first ?? "one of its topics")."
        case .team: fix = "Use a key for this environment and topic."
        }
        throw CommandFailure(message: "Not sent: \(refusal). \(fix)", status: ExitStatus.problem)
    }

    func validate(for service: GatewayService) throws {
        if authKey != nil && (service == .legacy || service == .feedback) {
            throw ValidationError("The legacy gateway has no token auth; give a certificate with --legacy.")
        }
    }

    /// Reads the identity or the `.p8` key (with `--passin`, which also opens an encrypted key).
    /// The key is turned into a signer at once, so a wrong curve or a malformed key or team id is
    /// refused before connecting, not reported as the gateway's answer.
    func load() throws -> LoadedCredentials {
        let passphrases = try certificate.passin.supplier()
        guard let authKey else { return .certificate(try IdentityLoader.load(certificate.files, passphrases: passphrases, identity: certificate.choice.selector)) }
        let key = try IdentityLoader.privateKey(authKey, passphrases: passphrases)
        // validate() made sure both ids exist; an empty one would still get the signer's sentence.
        let id = keyID ?? APNsTokenSigner.keyIDFromFileName(authKey) ?? ""
        return .token(try APNsTokenSigner(key: key, keyID: id, teamID: teamID ?? ""), key: key)
    }
}

/// What `CredentialOptions.load()` read.
enum LoadedCredentials {
    case certificate(APNsIdentity)
    /// The signer for `APNsClient`, the key for `GatewayCheck` (which signs its own probe).
    case token(APNsTokenSigner, key: PrivateKey)
}
