// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsTransport
import Testing

/// Proxy URLs and NO_PROXY as curl reads them, and the CONNECT answer's parsing.
@Suite struct HTTPProxyTests {
    @Test func urls() throws {
        let plain = try HTTPProxy(url: "http://proxy.example.com:3128")
        #expect(plain.host == "proxy.example.com" && plain.port == 3128 && plain.username == nil)
        let bare = try HTTPProxy(url: "127.0.0.9")
        #expect(bare.port == 1080, "curl's default port")
        let auth = try HTTPProxy(url: "http://al%40ce:p%3Ass@[::1]:8080/")
        #expect(auth.host == "::1" && auth.username == "al@ce" && auth.password == "p:ss")
        #expect(auth.description == "al@ce:***@[::1]:8080")
        for bad in ["https://proxy:443", "socks5://proxy:1080", "http://proxy:8080/path", "http://"] {
            #expect(throws: TransportError.self) { try HTTPProxy(url: bad) }
        }
        let error = try? HTTPProxy(url: "ftp://alice:secret@host:21")
        #expect(error == nil)
        do { _ = try HTTPProxy(url: "ftp://alice:secret@host:21") } catch { #expect(!"\(error)".contains("secret"), "\(error)") }
    }

    @Test(arguments: [
        ("api.push.apple.com", "*", true), ("api.push.apple.com", "apple.com", true), ("api.push.apple.com", ".apple.com", true),
        ("api.push.apple.com", "push.apple.com,example.org", true), ("api.push.apple.com", "example.org", false),
        ("notapple.com", "apple.com", false), ("127.0.0.1", "127.0.0.1", true), ("127.0.0.10", "127.0.0.1", false), ("API.PUSH.APPLE.COM", "Apple.com", true),
    ])
    func noProxy(host: String, list: String, bypassed: Bool) {
        #expect(HTTPProxy.bypasses(host, noProxy: list) == bypassed)
    }

    @Test func environmentPrecedence() throws {
        let lower = try HTTPProxy.fromEnvironment(for: "api.push.apple.com", ["https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2"])
        #expect(lower?.host == "a")
        #expect(try HTTPProxy.fromEnvironment(for: "api.push.apple.com", ["ALL_PROXY": "http://c:3"])?.host == "c")
        #expect(try HTTPProxy.fromEnvironment(for: "api.push.apple.com", ["HTTPS_PROXY": "http://b:2", "no_proxy": "*"]) == nil)
        #expect(try HTTPProxy.fromEnvironment(for: "api.push.apple.com", [:]) == nil)
    }

    @Test func connectAnswers() {
        let proxy = HTTPProxy(host: "p", port: 1)
        let target = Endpoint(host: "api.push.apple.com", port: 443)
        #expect(String(decoding: HTTPProxy(host: "p", port: 1, username: "u", password: "pw").connectRequest(to: target), as: UTF8.self)
                == "CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: api.push.apple.com:443\r\nProxy-Authorization: Basic dTpwdw==\r\n\r\n")
        func outcome(_ text: String) -> ProxyTunnel.Outcome? {
            var tunnel = ProxyTunnel(proxy: proxy, target: target)
            return Array(text.utf8).withUnsafeBytes { tunnel.received($0) }
        }
        if case .open = outcome("HTTP/1.1 200 Connection established\r\n\r\n") {} else { Issue.record("200 opens the tunnel") }
        #expect(outcome("HTTP/1.1 200 OK\r\n") == nil, "an unfinished head waits for more")
        if case .refused(let error) = outcome("HTTP/1.0 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n") {
            #expect(error.kind == .proxy(status: 407))
        } else { Issue.record("407 refuses") }
        if case .refused(let error) = outcome("SSH-2.0-OpenSSH\r\n\r\n") { #expect(error.kind == .proxy(status: 0)) } else { Issue.record("not HTTP") }
        if case .refused = outcome("HTTP/1.1 200 OK\r\n\r\nextra") {} else { Issue.record("data before TLS is refused") }
        if case .refused = outcome(String(repeating: "x", count: HTTPProxy.maximumAnswer + 1)) {} else { Issue.record("an endless head is refused") }
    }
}
