// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation
import Testing

/// docs/lint.md's rule table is the catalogue written out: same ids, same order, same
/// severity, source, APNs answer and device effect; and every source section exists.
@Suite struct LintDocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func rows() throws -> [[String]] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/lint.md"), encoding: .utf8)
        return text.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
        }.filter { $0.count == 6 }
    }

    @Test func tableMatchesCatalogue() throws {
        let rows = try Self.rows()
        #expect(rows.map { $0[0] } == APNsLintRules.all.map { "`\($0.id)`" })
        for (row, rule) in zip(rows, APNsLintRules.all) {
            #expect(row[1] == rule.severity.rawValue, "\(rule.id)")
            #expect(row[3] == rule.source, "\(rule.id)")
            #expect(row[4] == rule.apnsAnswer, "\(rule.id)")
            #expect(row[5] == (rule.device ?? "-"), "\(rule.id)")
        }
    }

    @Test func sourcesExist() throws {
        let protocolText = try String(contentsOf: Self.root.appendingPathComponent("docs/apns-protocol.md"), encoding: .utf8)
        for source in Set(APNsLintRules.all.map(\.source)) {
            #expect(protocolText.contains("## \(source) ") || protocolText.contains("### \(source) "), "\(source) is not a section of apns-protocol.md")
        }
    }
}
