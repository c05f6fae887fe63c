// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation

/// `check --format github`: GitHub Actions workflow commands, so each problem file shows as an
/// annotation on the run (and on the file in a pull request), plus a Markdown table appended to
/// the job summary (`$GITHUB_STEP_SUMMARY`) when the runner provides one.
///
/// Syntax (GitHub's "Workflow commands for GitHub Actions"): `::error file=F,title=T::MESSAGE`
/// and `::warning ...`, one per line. The message escapes `%`, CR and LF as `%25`, `%0D`,
/// `%0A`; property values also `:` and `,` as `%3A` and `%2C`.
enum CheckGitHub {
    /// FAIL and UNREADABLE are errors; WARN a warning (an error with `--strict`); OK files get
    /// the plain text line, so the log still lists every file.
    static func render(_ results: [CheckResult], summary: CheckSummary) -> String {
        var output = ""
        for result in results {
            let level: String
            switch result.status {
            case .ok: output += CheckText.line(result) + "\n"; continue
            case .warn: level = summary.strict ? "error" : "warning"
            case .fail, .unreadable: level = "error"
            }
            var properties: [String] = []
            if !CredentialInput.isNameless(result.path) { properties.append("file=\(property(result.path))") }
            properties.append("title=\(property("apnskit check: \(result.status.rawValue) \(displayName(result.path))"))")
            let detail = result.reasons.joined(separator: "; ") + (result.status == .unreadable ? "" : " [\(result.summary)]")
            output += "::\(level) \(properties.joined(separator: ","))::\(message(detail))\n"
        }
        return output + summary.line + "\n"
    }

    static func message(_ text: String) -> String {
        // GitHub decodes %25, %0D and %0A; other control characters (TAB, ESC from a file
        // name) are written as %HH too, so no raw one reaches the log's line-based reader.
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            case _ where ControlCharacters.isControl(scalar): out += String(format: "%%%02X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func property(_ text: String) -> String {
        message(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// GitHub refuses a step summary over 1 MiB (and then shows none of it); the table stops
    /// short of that, with a line saying how many files it leaves out.
    static let stepSummaryLimit = 1_000_000

    /// The job summary: a heading with the verdict and one table row per file, problems
    /// first (the files someone has to act on), then the OK ones, within `limit` bytes.
    static func stepSummary(_ results: [CheckResult], summary: CheckSummary) -> String {
        var markdown = "### \(summary.exitCode == 0 ? "✅" : "❌") \(markdownCell(summary.line))\n\n"
        markdown += "| status | file | details |\n|---|---|---|\n"
        let ordered = results.filter { $0.status != .ok } + results.filter { $0.status == .ok }
        let footerRoom = 200
        for (index, result) in ordered.enumerated() {
            let detail = result.reasons.isEmpty ? result.summary + CheckText.validity(result) : result.reasons.joined(separator: "; ")
            let row = "| \(result.status.rawValue) | \(markdownCell(displayName(result.path))) | \(markdownCell(detail)) |\n"
            if markdown.utf8.count + row.utf8.count + footerRoom > stepSummaryLimit {
                let left = ordered.count - index
                return markdown + "\n\(left) more file\(left == 1 ? "" : "s") not listed: GitHub keeps at most 1 MiB of summary per step; the log lists every file.\n\n"
            }
            markdown += row
        }
        return markdown + "\n"
    }

    /// Table cells: a pipe would end the cell and a line break the row; `<` would start HTML.
    static func markdownCell(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "|", with: "\\|")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "\r", with: " ")
            .replacingOccurrences(of: "\n", with: " ")
    }

    /// Appends `markdown` to `$GITHUB_STEP_SUMMARY` in one write. The gate's verdict does not
    /// depend on it: a summary that cannot be written is a warning on stderr.
    static func appendStepSummary(_ markdown: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            Output.warning("cannot append the check summary to GITHUB_STEP_SUMMARY (\(path)): \(String(cString: strerror(errno))).")
            return
        }
        defer { close(fd) }
        let bytes = Array(markdown.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        if written != bytes.count {
            Output.warning("cannot append the check summary to GITHUB_STEP_SUMMARY (\(path)): \(String(cString: strerror(errno))).")
        }
    }
}
