// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation

/// `check --format junit`: JUnit XML, the test-report format GitLab, Jenkins, Azure DevOps,
/// CircleCI and most CI test views read. One testcase per file; a FAIL is a `<failure>`, an
/// UNREADABLE file an `<error>` (the gate could not run), a WARN a `<failure>` only with
/// `--strict` and otherwise a passing case that says why in `<system-out>`.
///
/// The layout satisfies both schemas CI tools validate against: Jenkins' junit-10.xsd and
/// Ant's JUnit.xsd (which wants `properties`, `system-out` and `system-err` on each suite, a
/// `timestamp` without a zone and a `hostname`).
enum CheckJUnit {
    static let suiteName = "apnskit check"
    static let className = "apnskit.check"

    static func render(_ results: [CheckResult], durations: [TimeInterval], summary: CheckSummary,
                       options: [(String, String)], startedAt: Date) -> String {
        let failing = results.filter { $0.status == .fail || (summary.strict && $0.status == .warn) }.count
        let total = String(format: "%.3f", durations.reduce(0, +))
        let counts = "tests=\"\(results.count)\" failures=\"\(failing)\" errors=\"\(summary.unreadable)\" skipped=\"0\" time=\"\(total)\""
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"\(suiteName)\" \(counts)>\n"
        xml += "  <testsuite name=\"\(suiteName)\" \(counts) timestamp=\"\(timestamp(startedAt))\" hostname=\"\(attribute(hostName()))\">\n"
        xml += "    <properties>\n"
        for (name, value) in options {
            xml += "      <property name=\"\(attribute(name))\" value=\"\(attribute(value))\"/>\n"
        }
        xml += "    </properties>\n"
        for (index, result) in results.enumerated() {
            let seconds = String(format: "%.3f", index < durations.count ? durations[index] : 0)
            xml += "    <testcase classname=\"\(className)\" name=\"\(attribute(displayName(result.path)))\" time=\"\(seconds)\">\n"
            xml += testcaseBody(result, strict: summary.strict)
            xml += "    </testcase>\n"
        }
        xml += "    <system-out>\(text(summary.line))</system-out>\n"
        xml += "    <system-err></system-err>\n"
        xml += "  </testsuite>\n"
        xml += "</testsuites>\n"
        return xml
    }

    static func testcaseBody(_ result: CheckResult, strict: Bool) -> String {
        let message = attribute(result.reasons.joined(separator: "; "))
        let line = text(CheckText.line(result))
        switch result.status {
        case .unreadable:
            return "      <error type=\"UNREADABLE\" message=\"\(message)\">\(line)</error>\n"
        case .fail:
            return "      <failure type=\"FAIL\" message=\"\(message)\">\(line)</failure>\n"
        case .warn where strict:
            return "      <failure type=\"WARN\" message=\"\(message)\">\(line) (--strict)</failure>\n"
        case .warn, .ok:
            return "      <system-out>\(line)</system-out>\n"
        }
    }

    /// Ant's schema: ISO 8601 without a zone; the value is UTC.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withDashSeparatorInDate, .withColonSeparatorInTime]
        return formatter.string(from: date)
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Element text: markup characters escaped, and characters XML 1.0 forbids (control
    /// characters a file name may hold) replaced, so the report always parses.
    static func text(_ value: String) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            default:
                let allowed = scalar.value >= 0x20 && !(0xFFFE...0xFFFF).contains(scalar.value)
                escaped.unicodeScalars.append(allowed ? scalar : "\u{FFFD}")
            }
        }
        return escaped
    }

    /// Attribute values: also quotes, and line breaks as references (a parser would fold
    /// literal ones to spaces).
    static func attribute(_ value: String) -> String {
        text(value)
            .replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&apos;")
            .replacingOccurrences(of: "\n", with: "&#10;")
            .replacingOccurrences(of: "\r", with: "&#13;")
            .replacingOccurrences(of: "\t", with: "&#9;")
    }
}
