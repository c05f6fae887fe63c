// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The one reader of a TCP port taken from input: flags, `HOST:PORT`, URLs (`--proxy`,
/// `https_proxy`, `--ui`, `--webhook`, `mock ca --revocation-url`) and files (a ports file).
/// A port is 1 to 65535; 0 only where "any free port" is documented (`allowingAny`). Anything
/// else is refused, never wrapped: `99999` is not port 34463, and a port past Int's range is
/// not "no port" (URLComponents reads the first as 99999 and drops the second, so a URL's
/// port is read here from the URL's text).
package enum PortNumber {
    /// The ports a peer can be reached on.
    package static let range = 1...65_535

    /// What a URL says of its port.
    package enum InURL: Equatable, Sendable {
        /// No port written (`http://host/`, or `host:` with nothing after the colon): the
        /// scheme's default applies.
        case absent
        case valid(Int)
        /// Written, but not a port: digits out of range, or not digits. The text as written.
        case invalid(String)
    }

    /// `value` as a port: in `range`, or 0 too with `allowingAny`.
    package static func isValid(_ value: Int, allowingAny: Bool = false) -> Bool {
        range.contains(value) || (allowingAny && value == 0)
    }

    /// Decimal digits naming a port (`isValid`); nil for anything else (a sign, spaces, hex,
    /// more than five digits).
    package static func parse(_ text: some StringProtocol, allowingAny: Bool = false) -> Int? {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let value = Int(text), isValid(value, allowingAny: allowingAny) else { return nil }
        return value
    }

    /// The port in `url`'s authority (`[scheme://][user[:password]@]host[:port][/path][?query][#fragment]`,
    /// the host possibly a bracketed IPv6 literal).
    package static func inURL(_ url: String) -> InURL {
        let afterScheme = url.range(of: "://").map { url[$0.upperBound...] } ?? url[...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let portText: Substring
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return .absent }
            let rest = hostAndPort[hostAndPort.index(after: close)...]
            guard !rest.isEmpty else { return .absent }
            guard rest.hasPrefix(":") else { return .invalid(String(rest)) }
            portText = rest.dropFirst()
        } else {
            guard let colon = hostAndPort.lastIndex(of: ":") else { return .absent }
            portText = hostAndPort[hostAndPort.index(after: colon)...]
        }
        if portText.isEmpty { return .absent }
        return parse(portText).map(InURL.valid) ?? .invalid(String(portText))
    }
}
