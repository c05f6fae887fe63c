import Foundation

/// The one JSON style every `--format json` uses: sorted keys (stable diffs), pretty printed,
/// ISO 8601 dates in UTC, slashes unescaped (paths stay readable).
enum JSONOutput {
    static func print<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        Output.line(String(decoding: data, as: UTF8.self))
    }
}

/// `--format text|json`.
enum OutputFormat: String, CaseIterable, Sendable {
    case text, json
}
