// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsSender
import ArgumentParser
import Foundation

/// `apnskit trust-report`: would this CA bundle accept the APNs gateways' server chains?
/// Decided without connecting (`GatewayTrust`), so it runs where the gateway is not reachable:
/// a CI job checking the container image a service will run in, or a Java service's truststore.
struct TrustReport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust-report",
        abstract: "Say, without connecting, whether CA bundles would accept the APNs gateways' certificate chains.",
        discussion: """
        Since 2025 both gateways chain to USERTrust RSA Certification Authority; a bundle \
        without it fails every handshake. BUNDLE is a PEM bundle (a container's \
        /etc/ssl/certs/ca-certificates.crt, a Java cacerts exported with keytool -exportcert \
        -rfc), - or env:VAR; without one, the system store OpenSSL uses (SSL_CERT_FILE, \
        SSL_CERT_DIR, or its default). \
        Exit codes: 0 every bundle accepts the gateways, 1 one does not, 2 usage, 3 a bundle is \
        unreadable.

        Examples:
          apnskit trust-report
          apnskit trust-report /srv/image/etc/ssl/certs/ca-certificates.crt --environment production
          keytool -exportcert -rfc -cacerts -storepass changeit -alias usertrustrsaca [jdk] > java.pem; apnskit trust-report java.pem
        """
    )

    @Argument(help: ArgumentHelp("CA bundles to judge (default: the system store).", valueName: "BUNDLE"))
    var bundles: [String] = []

    @Option(help: "Judge one environment's gateway: sandbox or production (default: both).")
    var environment: APNsEnvironment?

    @OptionGroup var output: OutputOptions

    func run() throws {
        output.apply()
        let environments = environment.map { [$0] } ?? APNsEnvironment.allCases
        let reports = try (bundles.isEmpty ? [nil] : bundles.map { Optional($0) }).map { bundle -> GatewayTrust.Report in
            guard let bundle else {
                return GatewayTrust.evaluate(try SystemTrustBundle.certificates(), source: SystemTrustBundle.location, environments: environments)
            }
            let certificates = try CredentialFile.load(bundle, passphrases: .none).certificates
            guard !certificates.isEmpty else {
                throw APNsCredentialError(.wrongKind, "\(bundle) holds no certificates; give a CA bundle (PEM).")
            }
            return GatewayTrust.evaluate(certificates, source: bundle, environments: environments)
        }
        switch output.format {
        case .json: try JSONOutput.print(reports.map(TrustReportJSON.init))
        case .text: Output.line(reports.map(TrustReportText.text).joined(separator: "\n"))
        }
        if let refused = reports.first(where: { !$0.accepted }) {
            throw CommandFailure(message: TrustReportText.sentence(refused), status: ExitStatus.problem)
        }
    }
}

/// The text form: a line per gateway, as `check` prints a line per file.
enum TrustReportText {
    static func text(_ report: GatewayTrust.Report) -> String {
        var lines = ["trust-report \(report.source) (\(report.certificateCount) certificates)"]
        for verdict in report.verdicts {
            let word = verdict.status == .trusted ? "OK  " : "FAIL"
            lines.append("\(word) \(verdict.environment.rawValue) (\(verdict.host)): \(detail(verdict, root: report.root))")
        }
        if !report.formerRootsPresent.isEmpty && !report.accepted {
            lines.append("note: the bundle holds \(report.formerRootsPresent.joined(separator: " and ")), which the gateways chained to before; that no longer suffices.")
        }
        return lines.joined(separator: "\n")
    }

    static func detail(_ verdict: GatewayTrust.Verdict, root: GatewayTrust.Root) -> String {
        let since = root.since[verdict.environment].map { " (the root of this gateway's chain since \($0))" } ?? ""
        switch verdict.status {
        case .trusted:
            return "trusts \(root.name)\(since), valid until \(day(verdict.notAfter))."
        case .expired:
            return "holds \(root.name) but that copy expired on \(day(verdict.notAfter)); update the bundle (Debian: the ca-certificates package)."
        case .impostor:
            return "holds a certificate named \(root.name) with another key (\(verdict.subject ?? "")); it is not the root the gateways chain to, so the handshake fails."
        case .missing:
            return "lacks \(root.name)\(since), so the handshake fails; add it (Debian's ca-certificates has it as USERTrust_RSA_Certification_Authority.pem)."
        }
    }

    /// The exit sentence: the first refused bundle and why.
    static func sentence(_ report: GatewayTrust.Report) -> String {
        let refused = report.verdicts.filter { $0.status != .trusted }
        let names = refused.map { "\($0.environment.rawValue) (\($0.host))" }.joined(separator: " and ")
        let what = refused.count == 1 ? "gateway's chain" : "gateways' chains"
        return "\(report.source) would not accept the \(names) \(what): \(refused.first.map { detail($0, root: report.root) } ?? "")"
    }

    static func day(_ date: Date?) -> String {
        date.map(APNsCertificateInfo.day) ?? "unknown"
    }
}

/// The JSON form, one object per bundle (fields documented in docs/trust-report.md).
struct TrustReportJSON: Encodable {
    struct Gateway: Encodable {
        let environment: String
        let host: String
        let status: String
        let subject: String?
        let notAfter: Date?
    }
    let source: String
    let certificates: Int
    let root: String
    let rootPublicKeySHA256: String
    let accepted: Bool
    let gateways: [Gateway]
    let formerRootsPresent: [String]

    init(_ report: GatewayTrust.Report) {
        source = report.source
        certificates = report.certificateCount
        root = report.root.name
        rootPublicKeySHA256 = report.root.publicKeySHA256
        accepted = report.accepted
        gateways = report.verdicts.map {
            Gateway(environment: $0.environment.rawValue, host: $0.host, status: $0.status.rawValue, subject: $0.subject, notAfter: $0.notAfter)
        }
        formerRootsPresent = report.formerRootsPresent
    }
}
