// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `check --format junit|github|prometheus`, each read back by a parser we did not write:
/// Python's XML parser (and the JUnit structure CI tools expect), GitHub's documented
/// workflow-command syntax, and PyPI prometheus-client's text-format parser.
@Suite struct CheckReportFormatTests {
    /// A file name with every character one of the formats must escape.
    static let awkwardName = #"we"ird\,na:me&<x>%.cer"#

    /// One folder: OK, FAIL (expired), UNREADABLE (garbage), WARN (CSR), a chain file, and the
    /// awkward name (a copy of an OK certificate).
    func inputs(_ f: Fixtures, in folder: TemporaryDirectory) throws -> [String] {
        try FileManager.default.copyItem(atPath: f.path("good/production.cer"), toPath: folder.file(Self.awkwardName))
        return [f.path("good/production.cer"), f.path("expired.cer"), f.path("garbage.pem"), f.path("request.csr"),
                f.path("good/apns-universal.pem"), folder.file(Self.awkwardName)]
    }

    /// Runs a Python program with `input` on stdin; a missing python3 or module fails the
    /// test with a sentence that says to run scripts/setup.sh.
    func python(_ program: String, input: String) async throws -> ProcessResult {
        let result = try await ProcessRunner.run("python3", ["-c", program], stdin: Data(input.utf8))
        #expect(!result.stderr.contains("ModuleNotFoundError") && !result.stderr.contains("No such file"),
                "python3 or a module it needs is missing; run scripts/setup.sh: \(result.stderr)")
        return result
    }

    @Test func junitParsesAndHasTheStructureCIToolsRead() async throws {
        let f = try await Fixtures.shared.get()
        let folder = try TemporaryDirectory()
        let result = try await run(["apnskit", "check", "--format", "junit", "--ca-file", f.bundle] + inputs(f, in: folder))
        #expect(result.status == 3, "\(result.err)")
        // Python's parser, then the shape Jenkins' junit-10.xsd and Ant's JUnit.xsd describe.
        let checker = #"""
        import sys, xml.etree.ElementTree as ET
        root = ET.fromstring(sys.stdin.buffer.read())
        assert root.tag == "testsuites", root.tag
        suites = list(root)
        assert [s.tag for s in suites] == ["testsuite"], suites
        suite = suites[0]
        for attr in ("name", "tests", "failures", "errors", "skipped", "time", "timestamp", "hostname"):
            assert attr in suite.attrib, attr
        float(suite.get("time"))
        import datetime; datetime.datetime.strptime(suite.get("timestamp"), "%Y-%m-%dT%H:%M:%S")
        tags = [c.tag for c in suite]
        assert tags[0] == "properties" and tags[-2:] == ["system-out", "system-err"], tags
        assert set(tags[1:-2]) == {"testcase"}, tags
        cases = suite.findall("testcase")
        assert int(suite.get("tests")) == len(cases) == int(root.get("tests"))
        assert int(suite.get("failures")) == sum(len(c.findall("failure")) for c in cases) == int(root.get("failures"))
        assert int(suite.get("errors")) == sum(len(c.findall("error")) for c in cases) == int(root.get("errors"))
        for c in cases:
            assert c.get("classname") == "apnskit.check" and c.get("name"), c.attrib
            float(c.get("time"))
            kids = [k.tag for k in c]
            assert kids in (["failure"], ["error"], ["system-out"]), kids
            outcome = c[0]
            kind = "pass" if outcome.tag == "system-out" else outcome.tag + ":" + outcome.get("type") + ":" + outcome.get("message")
            print(c.get("name") + "\t" + kind)
        """#
        // The JUnit schema CI tools validate against (Jenkins' junit-10.xsd, written out in
        // Schemas/junit.xsd), checked by libxml2's validator.
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Schemas/junit.xsd"
        let xmllint = try await ProcessRunner.run("xmllint", ["--noout", "--schema", schema, "-"], stdin: Data(result.out.utf8))
        #expect(xmllint.status == 0, "xmllint (Debian's libxml2-utils; scripts/setup.sh installs it) did not validate the report: \(xmllint)")
        let parsed = try await python(checker, input: result.out)
        #expect(parsed.status == 0, "\(parsed.stderr)\n\(result.out)")
        let cases = Dictionary(uniqueKeysWithValues: parsed.stdout.split(separator: "\n").map { line -> (String, String) in
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            return ((parts[0] as NSString).lastPathComponent, parts.count > 1 ? parts[1] : "")
        })
        #expect(cases["production.cer"] == "pass")
        #expect(cases["apns-universal.pem"] == "pass")
        #expect(cases["request.csr"] == "pass")
        #expect(cases["expired.cer"]?.hasPrefix("failure:FAIL:expired on ") == true, "\(cases)")
        #expect(cases["garbage.pem"]?.hasPrefix("error:UNREADABLE:") == true, "\(cases)")
        // The awkward name comes back intact through attribute escaping.
        #expect(cases[Self.awkwardName] == "pass", "\(cases.keys)")

        let strict = try await run(["apnskit", "check", "--format", "junit", "--strict", f.path("request.csr")])
        #expect(strict.status == 1)
        #expect(strict.out.contains(#"<failure type="WARN""#), "\(strict.out)")
    }

    /// GitHub's syntax: `::error file=F,title=T::MESSAGE`; in values `%`, CR, LF are `%25`, `%0D`,
    /// `%0A`, and in properties `:` and `,` also `%3A`, `%2C`.
    @Test func githubAnnotationsFollowTheWorkflowCommandSyntax() async throws {
        let f = try await Fixtures.shared.get()
        let summaryFile = NSTemporaryDirectory() + "apnskit-step-summary-" + UUID().uuidString
        try Data("earlier step\n".utf8).write(to: URL(fileURLWithPath: summaryFile))
        defer { try? FileManager.default.removeItem(atPath: summaryFile) }
        let folder = try TemporaryDirectory()
        let failing = try inputs(f, in: folder)
        let result = try await run(["apnskit", "check", "--format", "github", "--ca-file", f.bundle, "--min-days", "100000",
                              failing[0], failing[1], failing[2], failing[3], failing[5]],
                             environment: ["GITHUB_STEP_SUMMARY": summaryFile])
        #expect(result.status == 3, "\(result.err)")
        let command = /^::(error|warning) ((?:[a-z]+=[^,:\r\n]*)(?:,[a-z]+=[^,:\r\n]*)*)::([^\r\n]*)$/
        var annotations: [(level: String, properties: [String: String], message: String)] = []
        for line in result.out.split(separator: "\n") where line.hasPrefix("::") {
            let match = try #require(try command.wholeMatch(in: String(line)), "not a workflow command: \(line)")
            var properties: [String: String] = [:]
            for pair in match.2.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                properties[parts[0]] = unescape(parts.count > 1 ? parts[1] : "")
            }
            annotations.append((String(match.1), properties, unescape(String(match.3))))
        }
        #expect(annotations.count == 5, "\(result.out)")
        let byFile = Dictionary(annotations.map { (($0.properties["file"] ?? "") as NSString).lastPathComponent }.enumerated().map { ($1, $0) },
                                uniquingKeysWith: { first, _ in first })
        let awkward = try #require(byFile[Self.awkwardName].map { annotations[$0] }, "\(annotations.map(\.properties))")
        #expect(awkward.level == "error")
        #expect(awkward.properties["title"]?.contains(Self.awkwardName) == true)
        #expect(awkward.message.contains("(--min-days 100000)"))
        let garbage = try #require(byFile["garbage.pem"].map { annotations[$0] })
        #expect(garbage.level == "error" && garbage.properties["title"]?.contains("UNREADABLE") == true)
        let csr = try #require(byFile["request.csr"].map { annotations[$0] })
        #expect(csr.level == "warning")
        #expect(result.out.hasSuffix("check FAILED: 5 files, 0 OK, 1 WARN, 3 FAIL, 1 UNREADABLE\n"), "\(result.out)")

        // Appended to the job summary, after what an earlier step wrote.
        let markdown = try String(contentsOfFile: summaryFile, encoding: .utf8)
        #expect(markdown.hasPrefix("earlier step\n### "))
        #expect(markdown.contains("| status | file | details |"))
        #expect(markdown.contains(#"| FAIL | "#))
        #expect(markdown.contains(#"we"ird\\,na:me&&lt;x>%.cer"#), "\(markdown)")
        #expect(markdown.split(separator: "\n").filter { $0.hasPrefix("| ") }.count == 6)
    }

    /// GitHub drops a step summary over 1 MiB. 300 files whose paths are about 3,700 bytes long
    /// (nested 200-character folder names) would make a 1.1 MB table: it stops under 1 MB, the
    /// FAIL rows come first, and a line counts the files left out.
    @Test func stepSummaryStaysUnderGitHubsLimit() async throws {
        let f = try await Fixtures.shared.get()
        let root = try TemporaryDirectory()
        var folder = root.path
        while folder.utf8.count < 3_600 { folder += "/" + String(repeating: "d", count: 200) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let expired = try Data(contentsOf: URL(fileURLWithPath: f.path("expired.cer")))
        let good = try Data(contentsOf: URL(fileURLWithPath: f.path("good/production.cer")))
        for index in 0..<300 {
            try (index % 30 == 0 ? expired : good).write(to: URL(fileURLWithPath: folder + "/c\(index).cer"))
        }
        let summaryFile = root.file("summary.md")
        let result = try await run(["apnskit", "check", "--format", "github", "--ca-file", f.bundle, root.path],
                             environment: ["GITHUB_STEP_SUMMARY": summaryFile])
        #expect(result.status == 1)
        #expect(result.out.contains("check FAILED: 300 files, 290 OK, 0 WARN, 10 FAIL, 0 UNREADABLE"))
        let markdown = try String(contentsOfFile: summaryFile, encoding: .utf8)
        #expect(markdown.utf8.count <= 1_000_000 && markdown.utf8.count > 900_000, "\(markdown.utf8.count)")
        let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| OK") || $0.hasPrefix("| FAIL") }
        #expect(rows.prefix(10).allSatisfy { $0.hasPrefix("| FAIL") })
        #expect(markdown.contains("\(300 - rows.count) more files not listed: GitHub keeps at most 1 MiB"), "\(rows.count)")
        #expect(rows.count < 300)
    }

    func unescape(_ value: String) -> String {
        value.replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%0A", with: "\n")
            .replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%2C", with: ",")
            .replacingOccurrences(of: "%25", with: "%")
    }

    @Test func prometheusOutputIsReadByPrometheusClientsParser() async throws {
        let f = try await Fixtures.shared.get()
        let folder = try TemporaryDirectory()
        let files = try inputs(f, in: folder)
        // production.cer twice: once by name, once more by name again; one set of series.
        let result = try await run(["apnskit", "check", "--format", "prometheus", "--ca-file", f.bundle] + files + [files[0]])
        #expect(result.status == 3, "\(result.err)")
        let reader = #"""
        import sys, json
        from prometheus_client.parser import text_string_to_metric_families
        out = []
        for family in text_string_to_metric_families(sys.stdin.read()):
            assert family.type == "gauge", (family.name, family.type)
            assert family.documentation, family.name
            for s in family.samples:
                out.append({"name": s.name, "labels": s.labels, "value": s.value})
        print(json.dumps(out))
        """#
        let parsed = try await python(reader, input: result.out)
        #expect(parsed.status == 0, "\(parsed.stderr)\n\(result.out)")
        let samples = try #require(try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [[String: Any]])
        func values(_ name: String, where match: (([String: String]) -> Bool) = { _ in true }) -> [Double] {
            samples.filter { $0["name"] as? String == name && match($0["labels"] as? [String: String] ?? [:]) }.compactMap { $0["value"] as? Double }
        }
        // Per certificate: production.cer (1), expired.cer (1), apns-universal.pem (leaf + intermediate), awkward (1).
        #expect(values("apns_certificate_not_after_seconds").count == 5)
        #expect(values("apns_certificate_valid", where: { $0["bundle_id"] == "com.example.old" }) == [0])
        #expect(values("apns_certificate_valid", where: { ($0["file"] ?? "").hasSuffix("production.cer") && $0["leaf"] == "true" }) == [1])
        let leaf = try #require(samples.first { $0["name"] as? String == "apns_certificate_not_after_seconds"
            && ($0["labels"] as? [String: String])?["file"] == files[4] && ($0["labels"] as? [String: String])?["leaf"] == "true" })
        let labels = leaf["labels"] as? [String: String] ?? [:]
        #expect(labels["bundle_id"] == "com.example.app")
        #expect(labels["team_id"]?.count == 10)
        #expect(labels["environment"] == "sandbox,production")
        #expect(labels["type"] == "universal")
        // The expiry the parser read is the certificate's, as openssl prints it.
        let enddate = try await Binaries.openssl(["x509", "-in", files[4], "-noout", "-enddate", "-dateopt", "iso_8601"])
        let iso = enddate.stdout.replacingOccurrences(of: "notAfter=", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: " ", with: "T")
        let expected = try #require(ISO8601DateFormatter().date(from: iso), "\(enddate)")
        #expect(leaf["value"] as? Double == expected.timeIntervalSince1970)
        // Per file: exactly one status is 1, and it is the file's.
        #expect(values("apns_credential_check_status", where: { $0["file"] == files[1] && $0["status"] == "fail" }) == [1])
        #expect(values("apns_credential_check_status", where: { $0["file"] == files[2] && $0["status"] == "unreadable" }) == [1])
        #expect(values("apns_credential_check_status", where: { $0["file"] == files[3] && $0["status"] == "warn" }) == [1])
        #expect(values("apns_credential_check_status", where: { $0["file"] == files[5] && $0["status"] == "ok" }) == [1])
        #expect(values("apns_credential_check_status").reduce(0, +) == Double(files.count))
        #expect(values("apns_credential_check_status").count == 4 * files.count)
        #expect(values("apns_credential_check_timestamp_seconds").count == 1)
    }

    /// `-o` for the textfile collector: written whole and atomically, refused over an
    /// existing file without --force, and the exit code still says the verdict.
    @Test func reportFileIsAtomicAndNeedsForceToReplace() async throws {
        let f = try await Fixtures.shared.get()
        let folder = try TemporaryDirectory()
        let prom = folder.file("apns.prom")
        let first = try await run(["apnskit", "check", "--format", "prometheus", "-o", prom, f.path("expired.cer")])
        #expect(first.status == 1)
        #expect(first.out.isEmpty)
        let written = try String(contentsOfFile: prom, encoding: .utf8)
        #expect(written.contains("apns_credential_check_status{file=\"\(f.path("expired.cer"))\",status=\"fail\"} 1"))
        #expect(try folder.mode("apns.prom") == 0o644)
        let again = try await run(["apnskit", "check", "--format", "prometheus", "-o", prom, f.path("good/production.cer")])
        #expect(again.status == 2, "\(again.err)")
        #expect(try String(contentsOfFile: prom, encoding: .utf8) == written)
        let forced = try await run(["apnskit", "check", "--format", "prometheus", "-o", prom, "--force", f.path("good/production.cer")])
        #expect(forced.status == 0, "\(forced.err)")
        #expect(try folder.entries() == ["apns.prom"])
    }
}
