import APNsProtocol

/// One line of a `--tokens` file: a device token, optionally followed by white space and a
/// JSON payload for that token alone. Blank lines and lines starting with `#` are skipped.
package enum BatchLine {
    package enum Parsed: Equatable {
        case skip
        case entry(token: APNsDeviceToken, payload: [UInt8]?)
        /// The token does not parse: it can never be delivered, so it belongs in the list of
        /// tokens to remove (`--invalid-tokens`).
        case badToken(String)
        /// The token is fine but the line is not (its payload is not a JSON object).
        case invalid(String)
    }

    package static func parse(_ bytes: [UInt8]) -> Parsed {
        var start = 0
        while start < bytes.count, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        guard start < bytes.count else { return .skip }
        if bytes[start] == UInt8(ascii: "#") { return .skip }
        // The token is everything up to the first '{' (tokens may contain spaces and <>).
        let brace = bytes[start...].firstIndex(of: UInt8(ascii: "{"))
        let tokenBytes = bytes[start..<(brace ?? bytes.count)]
        let token: APNsDeviceToken
        do {
            token = try APNsDeviceToken(parsingUTF8: tokenBytes)
        } catch let error as APNsDeviceTokenError {
            return .badToken(error.description)
        } catch {
            return .badToken("The device token is not valid.")
        }
        guard let brace else { return .entry(token: token, payload: nil) }
        var end = bytes.count
        while end > brace, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        let payload = Array(bytes[brace..<end])
        guard JSONSyntax.isObject(payload) else { return .invalid("The payload after the token is not a JSON object.") }
        return .entry(token: token, payload: payload)
    }
}
