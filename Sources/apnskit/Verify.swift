import APNsCredentials
import APNsTransport
import ArgumentParser
import Foundation

/// `apnskit verify`: prove credentials against a gateway, step by step (TCP, TLS, ALPN, the
/// server's chain and host name, the client certificate, and a harmless probe request).
/// Thin: parse, load the identity, run `GatewayCheck`, print its report.
struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Connect to APNs with the credentials and report whether they are accepted.",
        discussion: """
        IDENTITY is a combined PEM, a certificate plus its key, or a .p12; or use --auth-key with \
        --key-id and --team-id for token auth. The check sends a push to an all-zero device token: \
        APNs answers 400 BadDeviceToken when it accepted the credentials. \
        Exit codes: 0 accepted, 1 rejected, 3 identity unreadable, 4 could not connect or the TLS \
        handshake failed (untrusted or wrong server, timeout).
        """
    )

    enum Environment: String, ExpressibleByArgument, CaseIterable {
        case sandbox, production
    }

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: ArgumentHelp("Identity files: combined PEM, certificate + key, or .p12.", valueName: "IDENTITY"))
    var identity: [String] = []

    @Option(help: "APNs environment: sandbox or production.")
    var environment: Environment = .sandbox

    @Option(help: ArgumentHelp("Any other endpoint, e.g. a local mock gateway.", valueName: "HOST:PORT"))
    var gateway: String?

    @Option(help: "Port of Apple's provider API: 443 (default) or 2197.")
    var port: Int?

    @Flag(help: "Check the legacy binary gateway (gateway[.sandbox].push.apple.com:2195): TLS only.")
    var legacy = false

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("CA certificates (PEM) to trust instead of the system store.", valueName: "FILE"))
    var caFile: String?

    @Option(help: ArgumentHelp("Passphrase of an encrypted identity: env:VAR, file:PATH, fd:N, stdin, pass:TEXT or empty.", valueName: "SRC"))
    var passin: String?

    @Option(name: .customLong("auth-key"), help: ArgumentHelp("Token auth: the AuthKey_KEYID.p8 file.", valueName: "FILE"))
    var authKey: String?

    @Option(name: .customLong("key-id"), help: "Token auth: the key's 10-character id.")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Token auth: your 10-character team id.")
    var teamID: String?

    @Option(help: "apns-topic of the probe (default: the certificate's bundle id).")
    var topic: String?

    @Option(help: "Seconds to wait for the connection, the handshake and the answer.")
    var timeout: Double = 10

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Flag(help: "On errors, also print OpenSSL's error queue.")
    var verbose = false

    func validate() throws {
        if identity.isEmpty && authKey == nil {
            throw ValidationError("Give the identity (combined PEM, certificate + key, or .p12) or --auth-key with --key-id and --team-id.")
        }
        if !identity.isEmpty && authKey != nil {
            throw ValidationError("Give either an identity (certificate auth) or --auth-key (token auth), not both.")
        }
        if authKey != nil && (keyID == nil || teamID == nil) {
            throw ValidationError("--auth-key needs --key-id and --team-id.")
        }
        if authKey != nil && legacy {
            throw ValidationError("The legacy gateway has no token auth; give a certificate with --legacy.")
        }
        if gateway != nil && port != nil {
            throw ValidationError("--port applies to Apple's hosts; put the port in --gateway HOST:PORT instead.")
        }
        if let port, !(1...65535).contains(port) {
            throw ValidationError("--port must be between 1 and 65535.")
        }
        if !(timeout > 0) {
            throw ValidationError("--timeout must be a positive number of seconds.")
        }
        if let gateway, (try? Endpoint(parsing: gateway)) == nil {
            throw ValidationError("--gateway \(gateway) is not HOST:PORT.")
        }
    }

    /// Apple's host for the chosen environment and protocol.
    var endpoint: Endpoint {
        if let gateway, let parsed = try? Endpoint(parsing: gateway) { return parsed }
        let sandbox = environment == .sandbox
        if legacy {
            return Endpoint(host: sandbox ? "gateway.sandbox.push.apple.com" : "gateway.push.apple.com", port: port ?? 2195)
        }
        return Endpoint(host: sandbox ? "api.sandbox.push.apple.com" : "api.push.apple.com", port: port ?? 443)
    }

    func run() async throws {
        Output.verbose = verbose
        let source = try passin.map { try PassphraseSource(parsing: $0) }
        if source?.isVisibleToOtherProcesses == true {
            Output.warning("--passin pass:... puts the passphrase on the command line, where other processes can read it; prefer env:VAR or file:PATH.")
        }
        let passphrases = PassphraseSupplier(source: source, optionName: "--passin")
        let credentials: GatewayCheck.Credentials
        if let authKey, let keyID, let teamID {
            credentials = .token(key: try IdentityLoader.privateKey(authKey, passphrases: passphrases), keyID: keyID, teamID: teamID)
        } else {
            credentials = .certificate(try IdentityLoader.load(identity, passphrases: passphrases))
        }
        let check = GatewayCheck(endpoint: endpoint, credentials: credentials, trust: caFile.map { .caFile($0) } ?? .system,
                                 legacy: legacy, timeout: timeout, topic: topic)
        let report = await check.run()
        switch format {
        case .json: Output.line(try VerifyOutput.json(report))
        case .text: Output.line(VerifyOutput.text(report))
        }
        switch report.outcome {
        case .accepted: return
        case .rejected: throw CommandFailure(message: report.summary, status: ExitStatus.problem)
        case .failed: throw CommandFailure(message: report.summary, status: ExitStatus.network)
        }
    }
}

/// How `verify` prints a `GatewayReport`.
enum VerifyOutput {
    static func text(_ report: GatewayReport) -> String {
        var lines = ["verify \(report.endpoint) (\(report.legacy ? "legacy binary gateway" : "HTTP/2 provider API"))"]
        for step in report.steps {
            lines.append("  \(step.name.padding(toLength: 18, withPad: " ", startingAt: 0)) \(step.detail)")
        }
        lines.append("result: \(report.outcome.rawValue): \(report.summary)")
        return lines.joined(separator: "\n")
    }

    static func json(_ report: GatewayReport) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }
}
