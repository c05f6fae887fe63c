import APNsCredentials
import ArgumentParser
import Foundation

/// `apnskit check FILE|DIR...`: the CI gate. One line per file, a summary, and an exit code
/// a pipeline can rely on.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Gate CI on credentials: expiry horizon, environment, topic, key match, chain.",
        discussion: """
        Folders are searched recursively for .pem, .cer, .crt, .p12, .pfx and .p8 files. Every \
        file is checked even when an earlier one fails. Status per file: OK; WARN (not an APNs \
        certificate, no --ca-file to check the chain, a CSR); FAIL (expired, not yet valid, \
        expiring within --min-days, wrong environment, topic not covered, malformed topics, key \
        mismatch, no key with --require-key, chain not verifying to --ca-file); UNREADABLE. \
        Exit status: 3 if any file is unreadable; otherwise 1 if any file FAILs (or WARNs with \
        --strict); otherwise 0.
        """
    )

    @Argument(help: "Files and folders to check.")
    var paths: [String]

    @Option(help: "Fail certificates that expire within this many days.")
    var minDays: Int = 30

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

    @Option(help: "text or json.")
    var format: String = "text"

    func validate() throws {
        guard OutputFormat(rawValue: format) != nil else { throw ValidationError("--format must be text or json.") }
        if let environment, APNsEnvironment(rawValue: environment) == nil {
            throw ValidationError("--environment must be sandbox or production.")
        }
        guard minDays >= 0 else { throw ValidationError("--min-days must be 0 or more.") }
        guard !paths.isEmpty else { throw ValidationError("Give at least one file or folder to check.") }
    }

    func run() throws {
        let trust = try caFile.map { try TrustStore(caFile: $0) }
        var policy = CheckPolicy(minimumDays: minDays, environment: environment.flatMap(APNsEnvironment.init(rawValue:)),
                                 topic: topic, requireKey: requireKey, trust: trust, trustLabel: caFile)
        policy.ruleNames = [.minimumDays: "--min-days", .requireKey: "--require-key", .caFile: "--ca-file"]
        let passphrases = PassphraseSupplier(source: try passin.map(PassphraseSource.init(parsing:)), optionName: "--passin", allowPrompt: false)
        let files = CredentialChecker.expand(paths)
        let json = format == OutputFormat.json.rawValue
        var results: [CheckResult] = []
        results.reserveCapacity(files.count)
        let showProgress = !json && files.count > 50 && isatty(STDERR_FILENO) == 1
        for (index, file) in files.enumerated() {
            let result = CredentialChecker.check(file, policy: policy, passphrases: passphrases)
            results.append(result)
            if !json { Output.line(CheckText.line(result)) }
            if showProgress && index % 100 == 99 { Output.note("checked \(index + 1)/\(files.count)") }
        }
        let summary = CheckSummary(results, strict: strict)
        if json {
            try JSONOutput.print(CheckJSON(schemaVersion: 1, results: results, summary: summary))
        } else {
            Output.line(summary.line)
        }
        if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
    }
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
            detail = result.summary + validity(result)
        } else {
            detail = result.reasons.joined(separator: "; ") + " [\(result.summary)]"
        }
        return "\(status) \(displayName(result.path)): \(detail)"
    }

    static func validity(_ result: CheckResult) -> String {
        guard let daysLeft = result.daysLeft else { return "" }
        return ", \(daysLeft) days left"
    }
}
