// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation

/// One line of a `--tokens` file: a device token, optionally followed by white space and the
/// time the app last registered it (ISO 8601, `2026-11-20T10:00:00Z`: a 410's timestamp older
/// than it is no reason to delete the token, apns-protocol.md §12), optionally followed by a
/// JSON payload for that token alone. Blank lines and lines starting with `#` are skipped.
package enum BatchLine {
    package enum Parsed: Equatable {
        case skip
        case entry(token: APNsDeviceToken, payload: [UInt8]?, registeredAt: Date? = nil)
        /// The token does not parse: it can never be delivered, so it belongs in the list of
        /// tokens to remove (`--invalid-tokens`).
        case badToken(String)
        /// The token is fine but the line is not (its payload is not a JSON object).
        case invalid(String)
    }

    package static func parse(_ bytes: [UInt8]) -> Parsed {
        var start = 0
        while start < bytes.count, isBlank(bytes[start]) { start += 1 }
        guard start < bytes.count else { return .skip }
        if bytes[start] == UInt8(ascii: "#") { return .skip }
        // The token is everything up to the first '{' (tokens may contain spaces and <>, never
        // a brace); its last word is the registration time when it holds '-' or ':' (never in
        // a token's text forms). Found through the buffer, where three scans of the array's
        // slices cost a thousand instructions a line (issue 33).
        let scan = bytes.withUnsafeBufferPointer { Self.scanToken($0, from: start) }
        var tokenBytes = bytes[start..<scan.end]
        var registeredAt: Date?
        if let space = scan.lastWordBlank, scan.lastWordIsTime {
            let text = String(decoding: bytes[(space + 1)..<scan.end], as: UTF8.self)
            guard let date = RegistrationTime.parse(text) else {
                return .invalid("The registration time '\(text.prefix(64))' after the token is not an ISO 8601 date and time such as 2026-11-20T10:00:00Z.")
            }
            registeredAt = date
            tokenBytes = tokenBytes[..<space]
        }
        let brace = scan.brace
        let token: APNsDeviceToken
        do {
            token = try APNsDeviceToken(parsingUTF8: tokenBytes)
        } catch let error as APNsDeviceTokenError {
            return .badToken(error.description)
        } catch {
            return .badToken("The device token is not valid.")
        }
        guard let brace else { return .entry(token: token, payload: nil, registeredAt: registeredAt) }
        var last = bytes.count
        while last > brace, isBlank(bytes[last - 1]) { last -= 1 }
        let payload = Array(bytes[brace..<last])
        guard JSONSyntax.isObject(payload) else { return .invalid("The payload after the token is not a JSON object.") }
        return .entry(token: token, payload: payload, registeredAt: registeredAt)
    }

    /// A space or a tab: what separates a line's words.
    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// What `parse` needs of a line's text from `start` (not a blank) to its first '{': the
    /// first '{' if any (memchr), the end of the text before it without trailing blanks, the
    /// blank before the last word (nil for one word) and whether that word holds '-' or ':'
    /// (a walk back over the last word, when there is more than one).
    private static func scanToken(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int)
        -> (brace: Int?, end: Int, lastWordBlank: Int?, lastWordIsTime: Bool) {
        guard let base = bytes.baseAddress, start < bytes.count else { return (nil, start, nil, false) }
        let brace = memchr(base + start, Int32(UInt8(ascii: "{")), bytes.count - start)
            .map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }
        var end = brace ?? bytes.count
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        // One word (a plain hex token, most lines): no blank inside, nothing to walk back over.
        guard memchr(base + start, 0x20, end - start) != nil || memchr(base + start, 0x09, end - start) != nil else {
            return (brace, end, nil, false)
        }
        var index = end, isTime = false
        while index > start, !isBlank(bytes[index - 1]) {
            index -= 1
            if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: ":") { isTime = true }
        }
        return (brace, end, index > start ? index - 1 : nil, isTime)
    }
}

/// When an app last registered a token, as a provider's database gives it: ISO 8601 with a
/// time zone (`Z` or an offset), with or without fractional seconds.
package enum RegistrationTime {
    package static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// ISO 8601 in UTC with milliseconds (how a 410's millisecond timestamp is written back),
    /// rounded to the millisecond: the formatter truncates, and 1700000000.123 is stored as
    /// 1700000000.1229999 in a Double.
    package static func text(_ date: Date) -> String {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let whole = Date(timeIntervalSince1970: Double(fraction < 0 ? seconds - 1 : seconds)).formatted(Date.ISO8601FormatStyle())
        return whole.dropLast() + "." + String(String((fraction + 1000) % 1000 + 1000).dropFirst()) + "Z"
    }
}
