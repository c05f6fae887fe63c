// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The one JSON style every `--format json` uses: sorted keys (stable diffs), pretty printed,
/// ISO 8601 dates in UTC, slashes unescaped (paths stay readable).
enum JSONOutput {
    static func print<T: Encodable>(_ value: T) throws {
        Output.line(try string(value))
    }

    static func string<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// `--format text|json`.
enum OutputFormat: String, CaseIterable, Sendable {
    case text, json
}
