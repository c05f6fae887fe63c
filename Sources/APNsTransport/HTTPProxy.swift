// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import OpenSSLCore

/// An HTTP proxy that opens tunnels with CONNECT (RFC 9110 §9.3.6), as corporate and cloud
/// networks require for outbound TLS: the client connects to the proxy, asks it to `CONNECT
/// host:port`, and once it answers 2xx speaks TLS through the tunnel to the real server, whose
/// name and certificate are checked as usual (never the proxy's).
package struct HTTPProxy: Sendable, Equatable, CustomStringConvertible {
    package let host: String
    package let port: Int
    /// Basic credentials (`http://user:password@host:port`); never printed.
    package let username: String?
    package let password: String?

    package init(host: String, port: Int, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
    }

    /// A proxy URL as curl takes it: `http://[user:password@]host[:port]`, or without the
    /// scheme; the port defaults to 1080 (curl's default), user and password are
    /// percent-decoded. https:// proxies (TLS to the proxy itself) are not supported.
    package init(url text: String) throws {
        let withScheme = text.contains("://") ? text : "http://" + text
        let port: Int
        switch PortNumber.inURL(withScheme) {
        case .absent: port = 1080
        case .valid(let number): port = number
        case .invalid(let written):
            throw TransportError(.configuration, "The proxy \(Self.redacted(text)) has the port \(written); a port is 1 to 65535, as in http://proxy.example.com:3128.")
        }
        guard let components = URLComponents(string: withScheme), let host = components.host, !host.isEmpty else {
            throw TransportError(.configuration, "The proxy \(Self.redacted(text)) is not a URL such as http://proxy.example.com:3128.")
        }
        guard components.scheme?.lowercased() == "http" else {
            throw TransportError(.configuration, "The proxy \(Self.redacted(text)) uses \(components.scheme ?? "an unknown scheme"); only http:// proxies (CONNECT over plain HTTP) are supported.")
        }
        guard components.path.isEmpty || components.path == "/" else {
            throw TransportError(.configuration, "The proxy \(Self.redacted(text)) has a path; give http://[user:password@]host:port.")
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.init(host: bare, port: port,
                  username: components.percentEncodedUser.map { $0.removingPercentEncoding ?? $0 },
                  password: components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 })
    }

    /// `host:port`, with `user:***@` when credentials are set: safe for logs and reports.
    package var description: String {
        let address = Endpoint(host: host, port: port).description
        return username.map { "\($0):***@\(address)" } ?? address
    }

    /// A URL with its password replaced, for sentences about a URL that did not parse.
    package static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let scheme = text.range(of: "://") else { return text.contains("@") ? "(a URL with credentials)" : text }
        let userinfo = text[scheme.upperBound..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }

    /// The request that opens a tunnel to `target`.
    func connectRequest(to target: Endpoint) -> [UInt8] {
        var lines = ["CONNECT \(target.description) HTTP/1.1", "Host: \(target.description)"]
        if let username {
            let token = Data("\(username):\(password ?? "")".utf8).base64EncodedString()
            lines.append("Proxy-Authorization: Basic \(token)")
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// A proxy's answer to CONNECT is a status line and headers, nothing more before the tunnel
    /// opens; more than this is not a proxy.
    static let maximumAnswer = 16 * 1024

    /// The status of a complete answer head (`HTTP/1.x NNN reason`), or nil when `head` is not
    /// HTTP.
    static func status(of head: [UInt8]) -> (code: Int, reason: String)? {
        let text = String(decoding: head, as: UTF8.self)
        guard let line = text.split(separator: "\r\n", omittingEmptySubsequences: false).first, line.hasPrefix("HTTP/1.") else { return nil }
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count >= 2, let code = Int(parts[1]), (100...599).contains(code) else { return nil }
        return (code, parts.count > 2 ? parts[2] : "")
    }

    // MARK: - The environment, as curl reads it

    /// The proxy `https_proxy` / `HTTPS_PROXY` (then `all_proxy` / `ALL_PROXY`) names for
    /// `host`, unless `no_proxy` / `NO_PROXY` exempts it; nil when there is none. The lower-case
    /// names win, as in curl.
    package static func fromEnvironment(for host: String, _ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> HTTPProxy? {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        }
        guard let url = value("https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY") else { return nil }
        if let exempt = value("no_proxy", "NO_PROXY"), bypasses(host, noProxy: exempt) { return nil }
        return try HTTPProxy(url: url)
    }

    /// curl's `NO_PROXY` rules (lib/noproxy.c): the whole value `*` exempts every host;
    /// otherwise a list separated by commas and blanks. For a host name, an entry matches the
    /// name itself or any name under it (`example.com` and `.example.com` both match
    /// `api.example.com`; a trailing dot is ignored on both). For an IP address host, an entry
    /// is an address or a CIDR block (`127.0.0.0/8`, `::1/128`; no suffix or `/0` is the
    /// address itself, more bits than the address has match nothing); a name or a part of an
    /// address (`.0.0.1`) never matches an address.
    package static func bypasses(_ host: String, noProxy: String) -> Bool {
        if noProxy.trimmingCharacters(in: .whitespaces) == "*" { return true }
        var target = host.lowercased()
        if target.hasPrefix("["), target.hasSuffix("]") { target = String(target.dropFirst().dropLast()) }
        let address = IPAddressBytes(target)
        if address == nil, target.hasSuffix(".") { target.removeLast() }
        let entries = noProxy.lowercased().split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
        for entry in entries {
            if let address {
                if address.matches(cidr: entry) { return true }
                continue
            }
            var name = entry.hasPrefix(".") ? entry.dropFirst() : entry
            if name.hasSuffix(".") { name = name.dropLast() }
            guard !name.isEmpty else { continue }
            if target == name || target.hasSuffix("." + name) { return true }
        }
        return false
    }
}

/// An IPv4 or IPv6 address as network-order bytes, for `NO_PROXY`'s CIDR entries.
private struct IPAddressBytes {
    let bytes: [UInt8]

    init?(_ text: some StringProtocol) {
        let text = String(text)
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// `entry` is `address[/bits]` of the same family covering this address. As curl: no
    /// bits, bits that are not a number, or 0 mean the whole address.
    func matches(cidr entry: Substring) -> Bool {
        let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let network = IPAddressBytes(parts[0]), network.bytes.count == bytes.count else { return false }
        let width = bytes.count * 8
        var bits = width
        if parts.count == 2 {
            let digits = parts[1].prefix { $0.isASCII && $0.isNumber }
            guard digits.count <= 4 else { return false }
            let written = Int(digits) ?? 0
            guard written <= width else { return false }
            if written > 0 { bits = written }
        }
        for index in 0..<(bits / 8) where bytes[index] != network.bytes[index] { return false }
        let rest = bits % 8
        guard rest > 0 else { return true }
        let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - rest))
        return bytes[bits / 8] & mask == network.bytes[bits / 8] & mask
    }
}

/// The CONNECT exchange on one connection, as a value: what is left to write, what the proxy
/// has answered so far, and the verdict once its answer head is complete. `Connection` moves
/// the bytes; this decides.
struct ProxyTunnel {
    enum Outcome {
        case open
        case refused(TransportError)
    }

    let proxy: HTTPProxy
    let target: Endpoint
    private(set) var output: [UInt8]
    private var answer: [UInt8] = []

    init(proxy: HTTPProxy, target: Endpoint) {
        self.proxy = proxy
        self.target = target
        output = proxy.connectRequest(to: target)
    }

    var hasOutput: Bool { !output.isEmpty }

    mutating func sent(_ count: Int) { output.removeFirst(count) }

    /// Adds what the proxy sent; the verdict once the head (up to the blank line) is in.
    mutating func received(_ bytes: UnsafeRawBufferPointer) -> Outcome? {
        answer.append(contentsOf: bytes)
        guard let end = answer.firstRange(of: [13, 10, 13, 10]) else {
            guard answer.count <= HTTPProxy.maximumAnswer else {
                return .refused(TransportError(.proxy(status: 0), "The proxy \(proxy) sent more than \(HTTPProxy.maximumAnswer) bytes without finishing its answer to CONNECT \(target); is \(proxy) an HTTP proxy?"))
            }
            return nil
        }
        guard let (code, reason) = HTTPProxy.status(of: Array(answer[..<end.lowerBound])) else {
            return .refused(TransportError(.proxy(status: 0), "The proxy \(proxy) did not answer CONNECT \(target) with HTTP; is \(proxy) an HTTP proxy (not SOCKS, not TLS)?"))
        }
        guard (200...299).contains(code) else { return .refused(Self.refusal(code, reason, proxy: proxy, target: target)) }
        // A proxy says nothing more before the server does; the server waits for our TLS hello.
        guard end.upperBound == answer.count else {
            return .refused(TransportError(.proxy(status: code), "The proxy \(proxy) sent data after accepting CONNECT \(target), before the server could have spoken; the tunnel was not used."))
        }
        return .open
    }

    /// The proxy closed the connection before answering.
    func closedEarly() -> TransportError {
        TransportError(.proxy(status: 0), "The proxy \(proxy) closed the connection without answering CONNECT \(target).")
    }

    static func refusal(_ code: Int, _ reason: String, proxy: HTTPProxy, target: Endpoint) -> TransportError {
        // The reason phrase is the proxy's text, repeated in a sentence a terminal shows.
        let phrase = ControlCharacters.hexEscaped(reason)
        let said = "The proxy \(proxy) refused to open a tunnel to \(target) (\(code)\(phrase.isEmpty ? "" : " " + phrase))"
        switch code {
        case 401, 407:
            // 407 is the standard answer; some proxies (tinyproxy) answer wrong credentials 401.
            let hint = proxy.username == nil ? "it wants credentials: give them in the proxy URL, http://USER:PASSWORD@host:port" : "it did not accept the credentials in the proxy URL"
            return TransportError(.proxy(status: code), "\(said): \(hint).")
        case 403:
            return TransportError(.proxy(status: code), "\(said): its rules forbid that destination or port; ask its administrators to allow CONNECT to \(target).")
        case 502, 503, 504:
            return TransportError(.proxy(status: code), "\(said): the proxy could not reach \(target) itself.")
        default:
            return TransportError(.proxy(status: code), "\(said).")
        }
    }
}
