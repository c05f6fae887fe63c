// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import ArgumentParser
import Foundation

/// `apnskit lint PAYLOAD.json`: what APNs would accept and a device would still drop,
/// throttle or show otherwise (docs/lint.md). The rules are `APNsPayloadLint`'s, the same
/// `push` runs before sending and the mock marks accepted notifications with.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a payload for what APNs accepts and a device drops.",
        discussion: """
        PAYLOAD is a JSON file, or - for stdin. Give the headers you will send (--push-type, --topic, \
        --priority, --collapse-id) for the rules about them; without --push-type it is worked out from the \
        payload (a Live Activity's keys, a lone content-available, else alert). --attributes-schema checks \
        a Live Activity's content-state and attributes against the app's types. The rules, their sources and \
        what the device does: docs/lint.md.
        Exit codes: 0 clean (or warnings only, without --strict), 1 an error (or a warning with --strict), \
        2 usage, 3 unreadable payload or schema.

        Examples:
          apnskit lint update.json --push-type liveactivity --topic com.example.app.push-type.liveactivity --priority 10
          apnskit lint start.json --attributes-schema activity-schema.json --format json
        """
    )

    @Argument(help: ArgumentHelp("The payload: a JSON file, or - for stdin.", valueName: "PAYLOAD"))
    var payload: String

    @Option(name: .customLong("push-type"), help: "apns-push-type the payload goes with (default: worked out from the payload).")
    var pushType: APNsPushType?

    @Option(help: "apns-topic it goes to.") var topic: String?
    @Option(help: "apns-priority it goes with: 10, 5 or 1.") var priority: Int?
    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id it goes with.") var collapseID: String?

    @Option(name: .customLong("attributes-schema"), help: ArgumentHelp("A JSON description of the app's ActivityAttributes and ContentState (docs/lint.md).", valueName: "FILE"))
    var attributesSchema: String?

    @Flag(help: "Exit 1 on warnings too.") var strict = false
    @Option(help: "Output format: text or json.") var format: OutputFormat = .text

    /// Read at most this much of a payload or schema file: APNs takes 5 KB, so 64 KiB leaves
    /// room for whitespace, and more is refused unread (`push --payload`'s bound).
    static let maxInput = 64 * 1024

    func validate() throws {
        if let priority, APNsPriority(rawValue: priority) == nil { throw ValidationError("--priority must be 10, 5 or 1.") }
        if payload == "-" && attributesSchema == "-" { throw ValidationError("The payload and --attributes-schema cannot both read stdin.") }
    }

    func run() throws {
        var bytes = try CredentialFile.readBytes(payload, limit: Self.maxInput, kind: "an APNs payload (at most 5 KB of JSON); check PAYLOAD")
        while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 { bytes.removeLast() }
        let schema = try attributesSchema.map(Self.readSchema)
        let report = APNsPayloadLint.lint(APNsLintRequest(payload: bytes, pushType: pushType, topic: topic, priority: priority,
                                                          collapseID: collapseID, schema: schema))
        switch format {
        case .json: try JSONOutput.print(LintJSON(report, file: payload))
        case .text: Output.text(LintText.describe(report, file: payload, pushTypeGiven: pushType != nil))
        }
        if !report.errors.isEmpty || (strict && !report.warnings.isEmpty) { throw ExitCode(ExitStatus.problem) }
    }

    static func readSchema(_ path: String) throws -> APNsActivitySchema {
        let bytes = try CredentialFile.readBytes(path, limit: maxInput, kind: "an attributes schema (JSON); check --attributes-schema")
        do {
            return try APNsActivitySchema(parsing: bytes)
        } catch {
            throw CommandFailure(message: "The attributes schema \(path == "-" ? "on stdin" : path) \(error.description); fix it (docs/lint.md, \"Attributes schema\").", status: ExitStatus.input)
        }
    }
}

/// The text report: one line per finding, errors first, then a count.
enum LintText {
    static func describe(_ report: APNsLintReport, file: String, pushTypeGiven: Bool) -> String {
        var out = ""
        for finding in report.findings {
            out += "\(finding.rule.severity.rawValue): \(finding.path): \(finding.message) [\(finding.rule.id)]\n"
        }
        let name = file == "-" ? "stdin" : file
        let kind = "\(report.pushType.rawValue) push\(pushTypeGiven ? "" : ", push type worked out from the payload")"
        if report.findings.isEmpty {
            out += "\(name): no problems found (\(kind)).\n"
        } else {
            out += "\(name): \(count(report.errors.count, "error")), \(count(report.warnings.count, "warning")) (\(kind)).\n"
        }
        return out
    }

    private static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}

/// `--format json`: docs/lint.md ("JSON output") lists the fields; every one is always there
/// (`device` as null when there is nothing to say), so `jq` filters need no defaults.
struct LintJSON: Encodable {
    struct Finding: Encodable {
        let rule: String
        let severity: String
        let path: String
        let message: String
        let apns: String
        let device: OrNull
        let source: String
    }

    /// An optional text written as `null` (synthesized `Encodable` leaves a nil out).
    struct OrNull: Encodable {
        let text: String?

        func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            if let text { try container.encode(text) } else { try container.encodeNil() }
        }
    }

    let file: String
    let pushType: String
    let errors: Int
    let warnings: Int
    let device: OrNull
    let findings: [Finding]

    enum CodingKeys: String, CodingKey {
        case file, pushType = "push_type", errors, warnings, device, findings
    }

    init(_ report: APNsLintReport, file: String) {
        self.file = file
        pushType = report.pushType.rawValue
        errors = report.errors.count
        warnings = report.warnings.count
        device = OrNull(text: report.deviceMark)
        findings = report.findings.map {
            Finding(rule: $0.rule.id, severity: $0.rule.severity.rawValue, path: $0.path, message: $0.message,
                    apns: $0.rule.apnsAnswer, device: OrNull(text: $0.rule.device), source: "docs/apns-protocol.md \($0.rule.source)")
        }
    }
}
