// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsSender
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
        IDENTITY is a combined PEM, a certificate plus its key, or a .p12; or use --auth-key \
        AuthKey_KEYID.p8 --team-id T for token auth (--key-id defaults from the file name). The \
        check sends a push to an all-zero device token: APNs answers 400 BadDeviceToken when it \
        accepted the credentials. \
        Exit codes: 0 accepted, 1 rejected, 2 usage, 3 identity or CA file unreadable, 4 could not \
        connect or the TLS handshake failed (untrusted or wrong server, timeout).
        """
    )

    @OptionGroup var credentials: CredentialOptions
    @OptionGroup var gateway: GatewayOptions

    @Flag(help: "Check the legacy binary gateway (gateway[.sandbox].push.apple.com:2195): TLS only.")
    var legacy = false

    @Option(help: "apns-topic of the probe (default: the certificate's bundle id).")
    var topic: String?

    @Flag(name: .customLong("no-revocation"), help: "Do not ask the certificate's issuer (OCSP, else its CRL) whether it was revoked before connecting.")
    var noRevocation = false

    @OptionGroup var output: OutputOptions

    var service: GatewayService { legacy ? .legacy : .provider }

    func validate() throws {
        try credentials.validate(for: service)
        try gateway.validate(for: service)
    }

    func run() async throws {
        output.apply()
        let credentials: GatewayCheck.Credentials
        switch try self.credentials.load() {
        case .certificate(let identity): credentials = .certificate(identity)
        case .token(let signer, let key): credentials = .token(key: key, keyID: signer.keyID, teamID: signer.teamID)
        }
        try self.credentials.checkKeyScope(environment: APNsEnvironment(rawValue: gateway.environment.rawValue) ?? .sandbox, topic: topic)
        var check = GatewayCheck(endpoint: gateway.endpoint(for: service), credentials: credentials, trust: try gateway.trust(),
                                 legacy: legacy, timeout: gateway.timeout(for: service), topic: topic)
        check.revocation = noRevocation ? nil : RevocationChecker(timeout: max(1, Int(gateway.timeout(for: service).rounded(.up))))
        let report = await check.run()
        switch output.format {
        case .json: Output.line(try VerifyOutput.json(report))
        case .text: Output.line(VerifyOutput.text(report))
        }
        switch report.outcome {
        case .accepted: return
        case .rejected: throw CommandFailure(message: VerifyOutput.sentence(report), status: ExitStatus.problem)
        case .failed: throw CommandFailure(message: VerifyOutput.sentence(report), status: ExitStatus.network)
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
        lines.append("result: \(report.outcome.rawValue): \(sentence(report))")
        return lines.joined(separator: "\n")
    }

    /// The report's summary with the flag that applies its hint. A server we cannot trust gets
    /// no flag: `push` words that failure the same way without a report (`ConnectionFailure`).
    static func sentence(_ report: GatewayReport) -> String {
        guard let hint = report.hint, let flag = flag(for: hint), report.summary.hasSuffix(".") else { return report.summary }
        return String(report.summary.dropLast()) + " (\(flag))."
    }

    static func flag(for hint: GatewayReport.Hint) -> String? {
        switch hint {
        case .trustAnchor: return nil
        case .topic: return "pass it with --topic"
        case .productionEnvironment: return "try --environment production"
        case .sandboxEnvironment: return "try --environment sandbox"
        case .keyAndTeam: return "check --key-id and --team-id"
        case .credentials: return "give IDENTITY or --auth-key"
        }
    }

    static func json(_ report: GatewayReport) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }
}
