// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsTransport
import Foundation
import Testing
import TestSupport
import TransportTestSupport

/// Our TLS + HTTP/2 server against real clients: `nghttp`, `h2load` and `openssl s_client`.
@Suite("HTTP/2 server against nghttp, h2load and s_client")
struct HTTP2ServerInteropTests {
    let fixtures = Fixtures.shared

    /// A server answering like APNs' happy path: 200 with an apns-id, echoing the path in a header.
    func startServer(clientCA: String? = nil) throws -> HTTP2Server {
        let tls = TLSConfiguration.server(identity: try fixtures.serverIdentity, clientCA: clientCA)
        return try HTTP2Server.start(tls: tls) { request in
            var headers: [(name: String, value: String)] = [("apns-id", "00000000-0000-0000-0000-000000000001"), ("x-path", request.path)]
            if let subject = request.clientCertificate?.subject.first("UID") { headers.append(("x-client-uid", subject)) }
            return HTTP2Response(status: 200, headers: headers, body: Array("hello \(request.method) \(request.body.count)\n".utf8))
        }
    }

    @Test func nghttpGetsAResponse() async throws {
        let server = try startServer()
        defer { server.stop() }
        let result = try await ProcessRunner.run(tool("nghttp"), ["-v", "https://127.0.0.1:\(server.port)/3/device/abc"], combineOutput: true)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(":status: 200"))
        #expect(result.output.contains("hello GET 0"))
        #expect(result.output.contains("x-path: /3/device/abc"))
    }

    @Test func nghttpPostsABody() async throws {
        let server = try startServer()
        defer { server.stop() }
        let payload = fixtures.dir + "/payload.json"
        try Data(#"{"aps":{"alert":"hi"}}"#.utf8).write(to: URL(fileURLWithPath: payload))
        let result = try await ProcessRunner.run(tool("nghttp"), ["-d", payload, "https://127.0.0.1:\(server.port)/3/device/abc"], combineOutput: true)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("hello POST 22"))
    }

    /// The server reuses a header value equal to the previous request's: a changed value, a
    /// known name in upper case and an unknown name must still arrive exactly as sent.
    @Test func headerValuesArriveAsSentAcrossRequestsOnOneConnection() async throws {
        let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity)) { request in
            let seen = request.allHeaders.map { "\($0.name)=\($0.value)" }.joined(separator: ";")
            return HTTP2Response(status: 200, headers: [("X-Seen", seen), ("x-path", request.path)])
        }
        defer { server.stop() }
        let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port),
                                                   tls: .client(identity: nil, trust: .caFile(fixtures.caCert)), timeout: 10)
        defer { client.close() }
        let sent: [(path: String, token: String, extra: String)] = [
            ("/3/device/aa", "bearer one", "x"), ("/3/device/aa", "bearer one", "x"), ("/3/device/bb", "bearer two", "y"),
            ("/3/device/b", "bearer tw", ""), ("/3/device/aa", "bearer one", "x"),
        ]
        for request in sent {
            let response = try await client.send(HTTP2Request(path: request.path, headers: [
                ("Authorization", request.token), ("apns-topic", "t"), ("x-extra", request.extra),
            ], body: [1]), timeout: 10)
            #expect(response.header("x-path") == request.path)
            #expect(response.header("x-seen")?.hasPrefix("authorization=\(request.token);apns-topic=t;x-extra=\(request.extra);") == true,
                    "\(response.headers)")
        }
    }

    /// The server refills a delivered request's arrays for a later stream: a handler that keeps
    /// its requests must still hold each exactly as it came, and each new request only its own
    /// method, path, headers and body, whatever the one before it carried (a large body, more
    /// headers, none).
    @Test func keptRequestsStayAsSentWhileLaterStreamsReuseTheirStorage() async throws {
        let (kept, keeper) = AsyncStream.makeStream(of: HTTP2Request.self)
        let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity), loopHandler: { request in
            keeper.yield(request)
            return .now(HTTP2Response(status: 200, headers: [("x-seen", Self.summary(request))]))
        })
        defer { server.stop() }
        let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port),
                                                   tls: .client(identity: nil, trust: .caFile(fixtures.caCert)), timeout: 10)
        defer { client.close() }
        let sent = [
            HTTP2Request(path: "/3/device/aa", headers: [("x-one", "1"), ("x-two", "two"), ("x-three", "3")], body: Array(repeating: 7, count: 3000)),
            HTTP2Request(method: "GET", path: "/b"),
            HTTP2Request(path: "/3/device/cc", headers: [("x-two", "2")], body: [1, 2]),
            HTTP2Request(path: "/3/device/cc", headers: [("x-two", "2")], body: [3]),
            HTTP2Request(method: "GET", path: "/e", headers: [("x-one", "one")]),
        ]
        for request in sent {
            let response = try await client.send(request, timeout: 10)
            #expect(response.header("x-seen") == Self.summary(request))
        }
        keeper.finish()
        var received: [String] = []
        for await request in kept { received.append(Self.summary(request)) }
        #expect(received == sent.map(Self.summary))
    }

    /// Method, path, the `x-` headers in order, and the body's bytes.
    static func summary(_ request: HTTP2Request) -> String {
        let headers = request.allHeaders.filter { $0.name.hasPrefix("x-") }.map { "\($0.name)=\($0.value)" }
        return "\(request.method) \(request.path) \(headers.joined(separator: ";")) \(request.body.count):\(request.body.reduce(0) { $0 &+ Int($1) })"
    }

    @Test func h2loadCompletesAllRequests() async throws {
        let server = try startServer()
        defer { server.stop() }
        let result = try await ProcessRunner.run(tool("h2load"), ["-n", "2000", "-c", "4", "-m", "50", "https://127.0.0.1:\(server.port)/3/device/abc"], combineOutput: true)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("2000 succeeded"), "\(result.output)")
        #expect(result.output.contains("Application protocol: h2"))
    }

    @Test func opensslClientVerifiesOurChainAndGetsH2() async throws {
        let server = try startServer()
        defer { server.stop() }
        let result = try await ProcessRunner.run(tool("openssl"), ["s_client", "-connect", "127.0.0.1:\(server.port)", "-alpn", "h2",
                                                            "-CAfile", fixtures.caCert, "-verify_return_error", "-verify_hostname", "localhost"], combineOutput: true)
        #expect(result.output.contains("Verify return code: 0 (ok)"), "\(result.output)")
        #expect(result.output.contains("ALPN protocol: h2"), "\(result.output)")
    }

    @Test func requiredClientCertificateIsCheckedAgainstTheCA() async throws {
        let server = try startServer(clientCA: fixtures.caCert)
        defer { server.stop() }
        // Accepted: nghttp with a certificate from the CA; the handler sees its UID.
        let good = try await ProcessRunner.run(tool("nghttp"), ["-v", "--cert", fixtures.clientCert, "--key", fixtures.clientKey, "https://127.0.0.1:\(server.port)/x"], combineOutput: true)
        #expect(good.status == 0, "\(good.output)")
        #expect(good.output.contains("x-client-uid: \(Fixtures.bundleID)"))
        // Rejected: a certificate from another CA, and no certificate.
        let other = try await ProcessRunner.run(tool("nghttp"), ["--cert", fixtures.otherClientCert, "--key", fixtures.otherClientKey, "https://127.0.0.1:\(server.port)/x"], combineOutput: true)
        #expect(!other.output.contains("hello"))
        let none = try await ProcessRunner.run(tool("openssl"), ["s_client", "-connect", "127.0.0.1:\(server.port)", "-alpn", "h2", "-brief"], combineOutput: true)
        #expect(!none.output.contains("ALPN protocol: h2") || none.output.lowercased().contains("alert"), "\(none.output)")
        // And our own client against our own server.
        let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port),
                                                   tls: .client(identity: try fixtures.clientIdentity, trust: .caFile(fixtures.caCert)))
        defer { client.close() }
        let get = try await client.send(HTTP2Request(method: "GET", path: "/3/device/00"), timeout: 10)
        #expect(get.header("x-client-uid") == Fixtures.bundleID, "GET \(get.headers) \(client.handshake.clientCertificateRequested) \(client.handshake.protocolVersion)")
        let response = try await client.send(HTTP2Request(path: "/3/device/00", body: Array("{}".utf8)), timeout: 10)
        #expect(response.status == 200)
        #expect(response.header("x-client-uid") == Fixtures.bundleID, "\(response.headers)")
    }
}
