// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import APNsCredentials
import OpenSSLCore
import SecureIO
import APNsMock
import ArgumentParser
import Foundation

/// `apnskit mock ...`: the local test CA (and, later, the mock gateway).
struct MockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock",
        abstract: "A local stand-in for Apple: a test CA issuing Apple-like credentials, and a gateway that answers as APNs does.",
        subcommands: [MockCACommand.self, MockIssueCommand.self, MockRevokeCommand.self, MockServeCommand.self, MockExpectCommand.self, MockFaultsCommand.self]
    )
}

/// `apnskit mock ca -o DIR`
struct MockCACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Create a test CA: a root, a WWDR-like intermediate and a gateway server certificate.",
        discussion: """
        Writes into DIR (created if missing): root.pem, root-key.pem, wwdr.pem, wwdr-key.pem, \
        server.pem, server-key.pem, ca-bundle.pem (wwdr + root, for `check --ca-file`) and \
        README.txt. Keys are 0600. The intermediate is named like Apple's WWDR CA (OU=G4) but \
        its O says it is a mock.
        """
    )

    @Option(name: [.short, .customLong("out")], help: "Folder to write the CA into.")
    var out: String

    @Flag(help: "Replace existing files in the folder.")
    var force = false

    @Option(name: .customLong("revocation-url"),
            help: ArgumentHelp("Where `mock serve` answers revocation questions (http://127.0.0.1:PORT): push certificates issued from now on name its OCSP responder and CRL.", valueName: "URL"))
    var revocationURL: String?

    func validate() throws {
        if let revocationURL {
            do { _ = try MockRevocationURL.listenAddress(revocationURL) } catch {
                throw ValidationError("--revocation-url '\(ControlCharacters.hexEscaped(HTTPProxy.redacted(revocationURL)))' \(error).")
            }
        }
    }

    func run() throws {
        let ca = try MockCA.create()
        try ca.write(to: out, force: force)
        if let revocationURL { try MockRevocationURL.write(revocationURL, folder: out, force: force) }
        Output.line("Mock CA written to \(out)")
        Output.line("  root:         \(MockCALayout.root) (\(ca.root.subject.commonName ?? ""))")
        Output.line("  intermediate: \(MockCALayout.intermediate) (\(ca.intermediate.subject.description))")
        Output.line("  server:       \(MockCALayout.server) (\(MockCA.serverNames.count) host names + 127.0.0.1, ::1)")
        Output.line("  trust bundle: \(MockCALayout.bundle)")
        if let revocationURL {
            Output.line("  revocation:   \(MockRevocation.ocspURL(revocationURL)) (OCSP), \(MockRevocation.crlURL(revocationURL)) (CRL), served by `mock serve`")
        }
    }
}

/// `apnskit mock issue CSR --ca DIR --bundle-id B ... -o FILE.cer`
struct MockIssueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Sign a CSR as Apple's developer portal would and write the DER .cer (or a .p8 key, or a provisioning profile).",
        discussion: """
        The certificate's subject is UID=<bundle>, CN=<type prefix><bundle>, OU=<team>, O=<org>, \
        C=US; it carries Apple's environment and topics extensions and is valid for 13 months \
        unless --days or --not-before/--not-after say otherwise (dates as YYYY-MM-DD or \
        ISO 8601, UTC).
        """
    )

    @Argument(help: "The certificate signing request (PEM or DER); not with --auth-key.")
    var csr: String?

    @Flag(name: .customLong("auth-key"), help: "Instead of a certificate, make an AuthKey_<KEYID>.p8 token-auth key and register it with the mock gateway.")
    var authKey = false

    @Option(name: .customLong("key-id"), help: "With --auth-key: the 10-character key id (default: random).")
    var keyID: String?

    @Option(help: ArgumentHelp("With --auth-key: team (both environments, every topic), sandbox, production, or topics:A,B (those bundle ids only).", valueName: "SCOPE"))
    var scope: String = "team"

    @Option(help: "The mock CA folder made by `apnskit mock ca`.")
    var ca: String

    @Option(help: "The app's bundle id (or pass type id / website push id).")
    var bundleID: String?

    @Option(help: "development, production, universal, voip, passtype, website or watchkit.")
    var type: String = "development"

    @Option(help: "Team id written in the subject's OU.")
    var teamID: String = "A1B2C3D4E5"

    @Option(help: "Organisation written in the subject's O.")
    var org: String = "apnskit Mock Developer"

    @Option(help: "Validity in days from now (default: 13 months).")
    var days: Int?

    @Option(help: "Start of validity (with --not-after), e.g. 2020-01-01 for expired fixtures.")
    var notBefore: String?

    @Option(help: "End of validity (with --not-before).")
    var notAfter: String?

    @Option(name: [.short, .customLong("out")], help: "Where to write the DER certificate (- for stdout); with --auth-key a folder (created if missing) for AuthKey_<KEYID>.p8, or a .p8 path.")
    var out: String

    @Flag(help: "Replace the output if it exists.")
    var force = false

    @OptionGroup(title: "Provisioning profiles (--profile)")
    var profileOptions: MockProfileOptions

    static let types: [String: APNsCertificateType] = [
        "development": .development, "production": .production, "universal": .universal, "voip": .voip,
        "passtype": .passTypeID, "website": .website, "watchkit": .watchKit,
    ]

    func validate() throws {
        if profileOptions.profile {
            try profileOptions.validate(csr: csr, authKey: authKey, bundleID: bundleID, days: days, notBefore: notBefore, notAfter: notAfter)
            return
        }
        if authKey {
            if csr != nil || bundleID != nil { throw ValidationError("--auth-key makes a token-auth key; it takes no CSR and no --bundle-id.") }
            if AuthKeyRegistry.Scope(argument: scope) == nil {
                throw ValidationError("--scope '\(scope)' must be team, sandbox, production or topics:BUNDLE[,BUNDLE...] with each bundle id once (letters, digits, hyphens, periods), e.g. topics:com.example.app.")
            }
            return
        }
        if scope != "team" { throw ValidationError("--scope applies to --auth-key keys; certificates take --type.") }
        guard csr != nil else { throw ValidationError("Give the CSR to sign (or --auth-key for a .p8 token-auth key).") }
        guard bundleID != nil else { throw ValidationError("Missing expected argument '--bundle-id <bundle-id>'.") }
        guard Self.types[type.lowercased()] != nil else {
            throw ValidationError("--type must be one of development, production, universal, voip, passtype, website, watchkit.")
        }
        try ValidityArguments.validate(days: days, notBefore: notBefore, notAfter: notAfter)
    }

    func run() throws {
        if profileOptions.profile {
            try profileOptions.issue(caFolder: ca, bundleID: bundleID ?? "", teamID: teamID, days: days, notBefore: notBefore,
                                     notAfter: notAfter, out: out, force: force)
            return
        }
        if authKey {
            try MockAuthKey.issue(caFolder: ca, keyID: keyID, teamID: teamID, scope: AuthKeyRegistry.Scope(argument: scope) ?? .team, out: out, force: force)
            return
        }
        guard let csr, let bundleID else { return }
        try SecureFileWriter.preflight(out, force: force)
        let validity = try ValidityArguments.validity(days: days, notBefore: notBefore, notAfter: notAfter, fallback: .portalDefault)
        let authority = try MockCA.load(from: ca)
        let requestBytes = try CredentialFile.readBytes(csr)
        let request = try CertificateSigningRequest(bytes: requestBytes, label: displayName(csr))
        var portal = PortalRequest(bundleID: bundleID, type: Self.types[type.lowercased()]!, teamID: teamID,
                                   organization: org, validity: validity)
        portal.revocationURL = try MockRevocationURL.read(folder: ca)
        let certificate = try authority.issue(request, portal, label: displayName(csr))
        try SecureFileWriter.write(certificate.der, to: out, sensitivity: .public, force: force)
        // Recorded once written: the responder answers "good" for it from now on.
        if portal.revocationURL != nil { try MockRevocationIndex(folder: ca).recordIssued(certificate) }
        if out != SecureFileWriter.standardOutputPath {
            let info = certificate.apnsInfo()
            Output.line("Issued \(info.commonName ?? "") (\(info.environments.map(\.rawValue).joined(separator: " + "))), valid until \(DateArgument.format(info.notAfter)) -> \(out)")
        }
    }
}

/// Parses the date forms the CLI accepts: `YYYY-MM-DD` (midnight UTC) or full ISO 8601.
enum DateArgument {
    static func parse(_ text: String, option: String) throws -> Date {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if let date = day.date(from: text) { return date }
        throw CommandFailure(message: "\(option) '\(text)' is not a date; use YYYY-MM-DD or 2026-01-31T12:00:00Z.", status: ExitStatus.usage)
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: date)
    }
}
