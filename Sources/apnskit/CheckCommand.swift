// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import SecureIO
import ArgumentParser
import Foundation

/// `apnskit check FILE|DIR...`: the CI gate. One line per file, a summary, and an exit code
/// a pipeline can rely on.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Gate CI on credentials: expiry horizon, environment, topic, key match, chain.",
        discussion: """
        Inputs are files, folders, - (standard input) or env:VAR (a variable holding the file, \
        PEM, DER or PKCS#12, or base64 of one: how CI secret variables hold a .p12; --base64 \
        insists on base64). Folders are searched recursively for .pem, .cer, .crt, .p12, .pfx, \
        .p8, .mobileprovision and .provisionprofile files. Every file is checked even when an \
        earlier one fails. Provisioning profiles are cross-checked against the push certificates \
        and .p8 keys of the run and --push-credential: app id, aps-environment and team must fit \
        (in text on the terminal their lines come last). Status per file: OK; WARN (not an APNs \
        certificate, no --ca-file to check the chain, a CSR); FAIL (expired, not yet valid, \
        expiring within --min-days, wrong environment, topic not covered, malformed topics, key \
        mismatch, no key with --require-key, chain not verifying to --ca-file); UNREADABLE. \
        Token keys (.p8) are OK when EC P-256 with a key id (from AuthKey_<KEYID>.p8 or \
        --key-id). --format junit (JUnit XML), github (workflow-command annotations and a \
        $GITHUB_STEP_SUMMARY table) and prometheus (node_exporter textfile collector) report the \
        same verdicts. Exit status: 3 if any file is unreadable; otherwise 1 if any file FAILs \
        (or WARNs with --strict); otherwise 0.
        """
    )

    @Argument(help: ArgumentHelp("Files and folders to check; - reads standard input, env:VAR an environment variable.",
                                 valueName: "FILE|DIR|-|env:VAR"))
    var paths: [String]

    @Option(help: "Fail certificates that expire within this many days.")
    var minDays: Int = 30

    @Option(help: ArgumentHelp("Also fail certificates with less than this share of their lifetime left, e.g. 10%.", valueName: "P%"))
    var minRemaining: String?

    @Option(help: "Require this environment: sandbox or production.")
    var environment: String?

    @Option(help: "Require certificates to cover this apns-topic.")
    var topic: String?

    @Flag(help: "Require each certificate's private key in the same file (combined PEM, .p12).")
    var requireKey = false

    @Option(help: "CA bundle the certificates must chain to (e.g. Apple's WWDR G4 + root).")
    var caFile: String?

    @Flag(help: "Treat warnings as failures.")
    var strict = false

    @Option(help: "Passphrase source for encrypted keys and .p12 (the same for all files); never prompts.")
    var passin: String?

    @Flag(help: "Inputs are base64 text (as CI secret variables hold a .p12); without it base64 is recognised when it decodes to a credential.")
    var base64 = false

    @Option(name: .customLong("key-id"), help: "Token auth: the .p8 key's 10-character id when its name (or a nameless input) does not carry it.")
    var keyID: String?

    @Option(help: "text, json, junit, github or prometheus.")
    var format: String = "text"

    @Option(name: [.short, .long], help: ArgumentHelp("Write the report to this file (atomically; - is stdout).", valueName: "PATH"))
    var out: String?

    @Flag(help: "Replace the --out file if it exists.")
    var force = false

    @Flag(help: "Ask each push certificate's issuer whether it was revoked: OCSP (the responder its Authority Information Access names), else its CRL. Revoked fails; no answer is a warning.")
    var revocation = false

    @Flag(name: .customLong("revocation-required"), help: "As --revocation, and a certificate whose revocation cannot be checked fails (also spelled --revocation=require).")
    var revocationRequired = false

    @Option(name: .customLong("revocation-timeout"), help: "Seconds to wait for each OCSP responder or CRL (default 10).")
    var revocationTimeout: Int = 10

    @Option(name: .customLong("push-credential"), help: "A push certificate or .p8 key the provisioning profiles are cross-checked against, without gating it (repeatable).")
    var pushCredentials: [String] = []

    func validate() throws {
        guard CheckFormat(rawValue: format) != nil else {
            throw ValidationError("--format must be text, json, junit, github or prometheus.")
        }
        if let environment, APNsEnvironment(rawValue: environment) == nil {
            throw ValidationError("--environment must be sandbox or production.")
        }
        guard minDays >= 0 else { throw ValidationError("--min-days must be 0 or more.") }
        if let minRemaining, RemainingLifetime.parsePercent(minRemaining) == nil {
            throw ValidationError("--min-remaining must be a percentage from 0% to 100%, such as 10%.")
        }
        if let keyID, !APNsTokenSigner.isAppleIdentifier(keyID) {
            throw ValidationError("--key-id must be the key's 10-character id (upper-case letters and digits), as in AuthKey_<KEYID>.p8.")
        }
        guard !paths.isEmpty else { throw ValidationError("Give at least one file or folder to check.") }
        // OpenSSL takes the timeout as a C int; a day is past any responder worth waiting for.
        guard (1...86_400).contains(revocationTimeout) else { throw ValidationError("--revocation-timeout must be from 1 to 86400 seconds.") }
        let stdinReaders = paths.filter { $0 == "-" }.count + (passin == "stdin" ? 1 : 0)
        guard stdinReaders <= 1 else {
            throw ValidationError("Standard input can be read once: give - as one input only, and not with --passin stdin.")
        }
    }

    func run() throws {
        if let out { try SecureFileWriter.preflight(out, force: force) }
        let trust = try caFile.map { try TrustStore(caFile: $0) }
        var policy = CheckPolicy(minimumDays: minDays, environment: environment.flatMap(APNsEnvironment.init(rawValue:)),
                                 topic: topic, requireKey: requireKey, trust: trust, trustLabel: caFile)
        policy.minimumRemainingPercent = minRemaining.flatMap(RemainingLifetime.parsePercent)
        policy.keyID = keyID
        policy.decoding = base64 ? .base64 : .automatic
        if revocation || revocationRequired {
            policy.revocation = RevocationPolicy(checker: RevocationChecker(timeout: revocationTimeout), required: revocationRequired)
        }
        policy.ruleNames = [.minimumDays: "--min-days", .requireKey: "--require-key", .caFile: "--ca-file",
                            .minimumRemaining: "--min-remaining", .keyID: "--key-id", .revocationRequired: "--revocation-required"]
        let passphrases = PassphraseSupplier(source: try passin.map(PassphraseSource.init(parsing:)), optionName: "--passin")
        let files = CredentialChecker.expand(RawPath.fromCommandLine(paths))
        let profileRun = try CheckProfiles(pushCredentials: pushCredentials, passphrases: passphrases)
        let reportFormat = CheckFormat(rawValue: format) ?? .text
        // Text goes out line by line (a long folder walk shows progress); the other formats,
        // and any report for --out, are written whole once every file is checked.
        let streaming = reportFormat == .text && out == nil
        let startedAt = Date()
        var results: [CheckResult] = []
        var durations: [TimeInterval] = []
        results.reserveCapacity(files.count)
        let showProgress = streaming && files.count > 50 && isatty(STDERR_FILENO) == 1
        for (index, file) in files.enumerated() {
            let fileStart = Date()
            let result = CredentialChecker.check(file, policy: policy, passphrases: passphrases, now: startedAt)
            durations.append(Date().timeIntervalSince(fileStart))
            results.append(result)
            if streaming && result.profile == nil { Output.line(CheckText.line(result)) }
            if showProgress && index % 100 == 99 { Output.note("checked \(index + 1)/\(files.count)") }
        }
        for index in profileRun.crossCheck(&results, files: files) where streaming {
            Output.line(CheckText.line(results[index]))
        }
        let summary = CheckSummary(results, strict: strict)
        let report: String
        switch reportFormat {
        case .text:
            report = (streaming ? "" : results.map { CheckText.line($0) + "\n" }.joined()) + summary.line + "\n"
        case .json:
            report = try JSONOutput.string(CheckJSON(schemaVersion: 1, results: results, summary: summary)) + "\n"
        case .junit:
            report = CheckJUnit.render(results, durations: durations, summary: summary, options: reportedOptions, startedAt: startedAt)
        case .github:
            report = CheckGitHub.render(results, summary: summary)
            CheckGitHub.appendStepSummary(CheckGitHub.stepSummary(results, summary: summary))
        case .prometheus:
            report = CheckPrometheus.render(results, now: startedAt)
        }
        if let out, out != SecureFileWriter.standardOutputPath {
            try SecureFileWriter.write(Array(report.utf8), to: out, sensitivity: .public, force: force)
        } else {
            Output.text(report)
        }
        if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
    }

    /// The policy, for reports that record what was demanded (JUnit properties).
    var reportedOptions: [(String, String)] {
        var options: [(String, String)] = [("min-days", String(minDays)), ("strict", String(strict))]
        if let minRemaining { options.append(("min-remaining", minRemaining)) }
        if let environment { options.append(("environment", environment)) }
        if let topic { options.append(("topic", topic)) }
        if requireKey { options.append(("require-key", "true")) }
        if let caFile { options.append(("ca-file", caFile)) }
        if revocation || revocationRequired { options.append(("revocation", revocationRequired ? "required" : "check")) }
        return options
    }
}

/// `check --format`: the two formats every command has, plus the ones CI and monitoring read.
enum CheckFormat: String, CaseIterable {
    case text, json, junit, github, prometheus
}

/// Counts and the exit code: 3 if anything was unreadable, else 1 on any FAIL (or WARN with
/// --strict), else 0. Unreadable wins because a gate that could not read a file has not
/// checked it, and CI should say "fix the input" before "renew the certificate".
struct CheckSummary: Encodable {
    let files: Int
    let ok: Int
    let warn: Int
    let fail: Int
    let unreadable: Int
    let strict: Bool
    let exitCode: Int32

    init(_ results: [CheckResult], strict: Bool) {
        files = results.count
        ok = results.count { $0.status == .ok }
        warn = results.count { $0.status == .warn }
        fail = results.count { $0.status == .fail }
        unreadable = results.count { $0.status == .unreadable }
        self.strict = strict
        if unreadable > 0 { exitCode = ExitStatus.input }
        else if fail > 0 || (strict && warn > 0) { exitCode = ExitStatus.problem }
        else { exitCode = ExitStatus.success }
    }

    var line: String {
        let verdict = exitCode == 0 ? "passed" : "FAILED"
        return "check \(verdict): \(files) file\(files == 1 ? "" : "s"), \(ok) OK, \(warn) WARN, \(fail) FAIL, \(unreadable) UNREADABLE" + (strict ? " (--strict: warnings fail)" : "")
    }
}

struct CheckJSON: Encodable {
    let schemaVersion: Int
    let results: [CheckResult]
    let summary: CheckSummary
}

enum CheckText {
    /// `FAIL       path: reason; reason [what the file is]`, `OK         path: what it is, N days left`
    static func line(_ result: CheckResult) -> String {
        let status = result.status.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
        let detail: String
        if result.status == .unreadable {
            detail = result.reasons.joined(separator: "; ")
        } else if result.reasons.isEmpty {
            detail = result.summary + validity(result) + revocation(result)
        } else {
            detail = result.reasons.joined(separator: "; ") + " [\(result.summary)]"
        }
        return "\(status) \(displayName(result.path)): \(detail)"
    }

    /// "; not revoked (OCSP ...)" when `--revocation` asked and the answer was good.
    static func revocation(_ result: CheckResult) -> String {
        let good = result.certificates.compactMap(\.revocation).filter { $0.status == "good" }
        return good.first.map { "; \($0.detail)" } ?? ""
    }

    static func validity(_ result: CheckResult) -> String {
        guard let daysLeft = result.daysLeft else { return "" }
        return ", \(daysLeft) days left"
    }
}
