// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsTransport
import Foundation
import Testing
import TestSupport

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

    @Test func portNumbers() {
        #expect(PortNumber.parse("1") == 1 && PortNumber.parse("65535") == 65535 && PortNumber.parse("0", allowingAny: true) == 0)
        for bad in ["0", "65536", "99999", "-1", "+80", " 80", "80 ", "0x50", "", "18446744073709586079", "٨٠"] {
            #expect(PortNumber.parse(bad) == nil, "\(bad)")
        }
        #expect(PortNumber.inURL("http://h:8080/x?y#z") == .valid(8080))
        #expect(PortNumber.inURL("http://u:p:w@h:81") == .valid(81))
        #expect(PortNumber.inURL("http://[::1]:82/") == .valid(82))
        #expect(PortNumber.inURL("http://[::1]/") == .absent && PortNumber.inURL("http://h/") == .absent && PortNumber.inURL("http://h:/") == .absent)
        #expect(PortNumber.inURL("h:99999") == .invalid("99999") && PortNumber.inURL("http://[::1]x") == .invalid("x"))
        #expect(PortNumber.inURL("http://h:1e3") == .invalid("1e3"))
    }

    /// Before: URLComponents read 99999 as a port (dialled as 34463) and dropped one past Int's
    /// range (so the proxy became port 1080).
    @Test func portsOutsideTheRangeAreRefused() throws {
        for bad in ["http://127.0.0.1:99999", "127.0.0.1:65536", "http://127.0.0.1:18446744073709586079", "http://127.0.0.1:0",
                    "http://u:p@127.0.0.1:-1", "http://[::1]:70000", "http://127.0.0.1:8o80"] {
            #expect(throws: TransportError.self, "\(bad)") { try HTTPProxy(url: bad) }
            do { _ = try HTTPProxy(url: bad) } catch { #expect("\(error)".contains("a port is 1 to 65535") || "\(error)".contains("not a URL"), "\(error)") }
        }
        #expect(try HTTPProxy(url: "http://127.0.0.1:65535").port == 65535)
        #expect(try HTTPProxy(url: "http://127.0.0.1:1").port == 1)
        #expect(throws: TransportError.self) { try HTTPProxy.fromEnvironment(for: "api.push.apple.com", ["https_proxy": "http://127.0.0.1:99999"]) }
    }

    /// Our reading of NO_PROXY beside curl's, for a loopback address and a name: curl is asked
    /// to reach a closed port through a proxy on another closed port, and the port it says it
    /// could not connect to tells whether it bypassed the proxy.
    @Test func noProxyAsCurlReadsIt() async throws {
        // Bound, never listening: a connection to either is refused at once, and they differ.
        let (proxySocket, proxyPort) = bindLoopbackTCP()
        let (targetSocket, targetPort) = bindLoopbackTCP()
        defer { close(proxySocket); close(targetSocket) }
        let forms = ["127.0.0.0/8", "127.0.0.1/32", "127.0.0.1/0", "127.0.0.2/31", "127.0.0.1/33", ".0.0.1", "0.0.1", "127.0.0.1", "127.0.0.1.",
                     "*", "a,*", " x , 127.0.0.1", "x 127.0.0.1", "localhost", ".localhost", "LOCALHOST", "localhost.", "ocalhost", "*.localhost", "127.0.0.0/24,example.org"]
        for host in ["127.0.0.1", "localhost"] {
            for form in forms {
                let result = try await ProcessRunner.run("/usr/bin/curl", ["--silent", "--show-error", "--max-time", "10", "https://\(host):\(targetPort)/"],
                                                         environment: ["https_proxy": "http://127.0.0.1:\(proxyPort)", "HTTPS_PROXY": "http://127.0.0.1:\(proxyPort)",
                                                                       "no_proxy": form, "NO_PROXY": form])
                let curlBypassed = result.stderr.contains("port \(targetPort)") && !result.stderr.contains("port \(proxyPort)")
                #expect(result.stderr.contains("port \(targetPort)") || result.stderr.contains("port \(proxyPort)"), "\(result)")
                #expect(HTTPProxy.bypasses(host, noProxy: form) == curlBypassed, "NO_PROXY=\"\(form)\" for \(host): curl \(curlBypassed ? "bypasses" : "uses") the proxy")
            }
        }
        // IPv6 blocks as curl's source reads them (curl 7.88 on Debian 12 matches only the exact text).
        #expect(HTTPProxy.bypasses("::1", noProxy: "::1") && HTTPProxy.bypasses("[::1]", noProxy: "::1/128") && HTTPProxy.bypasses("::1", noProxy: "::/64"))
        #expect(!HTTPProxy.bypasses("::1", noProxy: "::2/127") && !HTTPProxy.bypasses("::1", noProxy: "127.0.0.1/8") && !HTTPProxy.bypasses("127.0.0.1", noProxy: "::1"))
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
