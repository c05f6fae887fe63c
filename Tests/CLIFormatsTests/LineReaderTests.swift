// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import CLIFormats
import Foundation
import Testing
import TestSupport

@Suite("Token files: streamed, bounded, per-line payloads")
struct LineReaderTests {
    @Test("Lines across chunk boundaries, CRLF, and a last line without newline")
    func lines() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("t", text: "alpha\r\nbeta\n\ngamma")
        let reader = try LineReader(path: path, chunkSize: 3)
        var lines: [LineReader.Line] = []
        while let line = try reader.next() { lines.append(line) }
        #expect(lines == [.text(Array("alpha".utf8), number: 1), .text(Array("beta".utf8), number: 2), .text([], number: 3), .text(Array("gamma".utf8), number: 4)])
    }

    @Test("An over-long line is reported and skipped without buffering it; the next line still reads")
    func longLine() throws {
        let dir = try TemporaryDirectory()
        let long = String(repeating: "x", count: 3_000_000)
        let path = try dir.write("t", text: "first\n\(long)\nlast\n")
        let reader = try LineReader(path: path, maximumLineLength: 1024)
        #expect(try reader.next() == .text(Array("first".utf8), number: 1))
        #expect(try reader.next() == .tooLong(number: 2))
        #expect(try reader.next() == .text(Array("last".utf8), number: 3))
        #expect(try reader.next() == nil)
    }

    @Test("Batch lines: token alone, token + payload, comments, bad tokens, bad payloads")
    func batchLines() throws {
        let token = String(repeating: "ab", count: 32)
        #expect(BatchLine.parse(Array(token.utf8)) == .entry(token: try APNsDeviceToken(parsing: token), payload: nil))
        #expect(BatchLine.parse(Array("\(token) {\"aps\":{}}  ".utf8)) == .entry(token: try APNsDeviceToken(parsing: token), payload: Array("{\"aps\":{}}".utf8)))
        #expect(BatchLine.parse(Array("  # comment".utf8)) == .skip)
        #expect(BatchLine.parse([]) == .skip)
        if case .badToken(let why) = BatchLine.parse(Array("zz".utf8)) { #expect(why.contains("hex")) } else { Issue.record("zz accepted") }
        if case .invalid(let why) = BatchLine.parse(Array("\(token) {nope".utf8)) { #expect(why.contains("JSON")) } else { Issue.record("bad JSON accepted") }
    }

    @Test("A --tokens line may carry the registration time between the token and the payload")
    func registrationColumn() throws {
        let hex = String(repeating: "ab", count: 32)
        let token = try APNsDeviceToken(parsing: hex)
        let at = try #require(RegistrationTime.parse("2026-11-20T10:00:00Z"))
        #expect(BatchLine.parse(Array("\(hex) 2026-11-20T10:00:00Z".utf8)) == .entry(token: token, payload: nil, registeredAt: at))
        #expect(BatchLine.parse(Array("\(hex)  2026-11-20T10:00:00.000Z {\"aps\":{}}".utf8))
                == .entry(token: token, payload: Array("{\"aps\":{}}".utf8), registeredAt: at))
        #expect(RegistrationTime.parse("2026-11-20T11:00:00+01:00") == at)
        // Grouped hex is still a token, not a date.
        let grouped = stride(from: 0, to: 64, by: 8).map { String(hex.dropFirst($0).prefix(8)) }.joined(separator: " ")
        #expect(BatchLine.parse(Array(grouped.utf8)) == .entry(token: token, payload: nil))
        guard case .invalid(let why) = BatchLine.parse(Array("\(hex) 2026-13-45T00:00:00Z".utf8)) else { Issue.record("bad date accepted"); return }
        #expect(why.contains("'2026-13-45T00:00:00Z'") && why.contains("ISO 8601"))
        #expect(RegistrationTime.text(Date(timeIntervalSince1970: 1_700_000_000.123)) == "2023-11-14T22:13:20.123Z")
    }
}
