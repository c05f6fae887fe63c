// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
@testable import APNsSender
import APNsTransport
import Foundation
import TestSupport
import Testing

/// The HTTP/2 adapter and `APNsClient` against a real `HTTP2Server` over TLS (fixtures made by
/// the openssl CLI at test time), plus the transport-error mapping that decides whether a
/// resend may duplicate.
@Suite("HTTP/2 provider connection and APNsClient")
struct HTTP2ProviderConnectionTests {
    /// A self-signed server certificate for 127.0.0.1 (also the client's trust anchor) and an
    /// ES256 token-auth key.
    struct Material {
        let directory: TemporaryDirectory
        let serverCert: String
        let serverKey: String
        let authKey: String

        init() throws {
            directory = try TemporaryDirectory("apnskit-sender")
            serverCert = directory.file("server.pem")
            serverKey = directory.file("server.key")
            authKey = directory.file("AuthKey_ABC123DEFG.p8")
            var result = try Binaries.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                               "-keyout", serverKey, "-out", serverCert, "-days", "2", "-subj", "/CN=127.0.0.1",
                                               "-addext", "subjectAltName=IP:127.0.0.1"])
            guard result.status == 0 else { throw FixtureError(result.description) }
            result = try Binaries.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", authKey])
            guard result.status == 0 else { throw FixtureError(result.description) }
        }

        func server(_ handler: @escaping HTTP2Server.Handler) throws -> HTTP2Server {
            let identity = try IdentityLoader.load([serverCert, serverKey], passphrases: .none)
            return try HTTP2Server.start(tls: .server(identity: identity), handler: handler)
        }

        func signer() throws -> APNsTokenSigner {
            try APNsTokenSigner.load(authKey: authKey, keyID: nil, teamID: "TEAMID1234")
        }
    }

    final class Box: @unchecked Sendable {
        let lock = NSLock()
        var values: [String] = []
        func add(_ value: String) { lock.withLock { values.append(value) } }
        var all: [String] { lock.withLock { values } }
    }

    @Test func tokenAuthClientDeliversAndRejects() async throws {
        let material = try Material()
        let seen = Box()
        let server = try material.server { request in
            seen.add(request.header("authorization") ?? "")
            if request.path.hasSuffix("dead") {
                return HTTP2Response(status: 410, headers: [("apns-id", request.header("apns-id") ?? "")],
                                     body: Array(#"{"reason":"Unregistered","timestamp":1700000000000}"#.utf8))
            }
            return HTTP2Response(status: 200, headers: [("apns-id", request.header("apns-id") ?? "")])
        }
        defer { server.stop() }
        let client = APNsClient(endpoint: Endpoint(host: "127.0.0.1", port: server.port), trust: .caFile(material.serverCert),
                                authentication: .token(try material.signer()))
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let good = await client.send(APNsNotification(token: try APNsDeviceToken(parsing: String(repeating: "ab", count: 32)), payload: payload, topic: "com.example.app"))
        #expect(good.outcome == .delivered)
        let bad = await client.send(APNsNotification(token: try APNsDeviceToken(parsing: String(repeating: "ab", count: 30) + "dead"), payload: payload, topic: "com.example.app"))
        #expect(bad.outcome == .rejected(status: 410, reason: .unregistered, timestamp: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(bad.invalidatesToken)
        await client.close()
        #expect(seen.all.count == 2)
        #expect(seen.all.allSatisfy { $0.hasPrefix("bearer ") && $0.split(separator: ".").count == 3 })
    }

    @Test func goAwayMakesTheConnectionUnusable() async throws {
        let material = try Material()
        let server = try material.server { _ in HTTP2Response(status: 200) }
        defer { server.stop() }
        let connector = HTTP2ProviderConnector(endpoint: Endpoint(host: "127.0.0.1", port: server.port),
                                               tls: .client(identity: nil, trust: .caFile(material.serverCert)))
        let connection = try await connector.connect()
        #expect(connection.isUsable)
        let response = try await connection.send(HTTP2Request(path: "/3/device/00", headers: [], body: []))
        #expect(response.status == 200)
        server.goAwayAll(code: 0, debug: #"{"reason":"Shutdown"}"#)
        // Wait (bounded) for the GOAWAY to arrive; no timing is asserted.
        #expect(await Wait.until(seconds: 30) { !connection.isUsable })
        do {
            _ = try await connection.send(HTTP2Request(path: "/3/device/00", headers: [], body: []))
            Issue.record("a request on a connection going away must fail")
        } catch {
            guard case .notProcessed = error else { Issue.record("expected notProcessed, got \(error)"); return }
        }
        connection.close()
    }

    @Test func closedPortCannotConnect() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        close(listener)  // bound, never listening, now closed: connections are refused
        let connector = HTTP2ProviderConnector(endpoint: Endpoint(host: "127.0.0.1", port: port), tls: .client(identity: nil))
        do {
            _ = try await connector.connect()
            Issue.record("connecting to a closed port must fail")
        } catch {
            guard case .cannotConnect(let why) = error else { Issue.record("expected cannotConnect, got \(error)"); return }
            #expect(why.contains("127.0.0.1"), "\(why)")
        }
    }

    @Test func transportErrorsMapToResendSafety() {
        // REFUSED_STREAM never reaches the sender as a reset: the state machine names it, and the
        // client role reports it `.notProcessed` (issue 32: the `.streamReset(7)` case was dead).
        #expect(HTTP2ConnectionStateMachine(now: 0).streamEnd(1, errorCode: HTTP2ConnectionStateMachine.refusedStream, answered: false) == .refused)
        #expect(HTTP2ProviderConnection.map(TransportError(.notProcessed, "above last-stream-id")) == .notProcessed("above last-stream-id"))
        #expect(HTTP2ProviderConnection.map(TransportError(.connectionClosed, "closed")) == .connectionLost("closed"))
        #expect(HTTP2ProviderConnection.map(TransportError(.timeout, "silent")) == .connectionLost("silent"))
        #expect(HTTP2ProviderConnection.map(TransportError(.streamReset(2), "internal")) == .connectionLost("internal"))
    }
}
