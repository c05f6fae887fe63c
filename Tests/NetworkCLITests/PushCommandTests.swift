// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsTransport
import Foundation
import Testing
import TestSupport
import TransportTestSupport

/// `apnskit push` over HTTP/2 end to end: the built binary against in-test `HTTP2Server`s that
/// answer as APNs would (scripted statuses, GOAWAY mid-batch), and a closed port.
@Suite("apnskit push (CLI, HTTP/2)")
struct PushCommandTests {
    let fixtures = Fixtures.shared

    var apnskit: String { Binaries.apnskit }

    /// Requests seen by a test server, from many handler tasks.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var paths: [String: Int] = [:]
        private var bodies: [String: String] = [:]
        private(set) var topics: Set<String> = []
        private(set) var authorizations: Set<String> = []
        var server: HTTP2Server?
        private var count = 0

        func record(_ request: HTTP2Request) -> Int {
            lock.withLock {
                count += 1
                paths[request.path, default: 0] += 1
                bodies[request.path] = String(decoding: request.body, as: UTF8.self)
                if let topic = request.header("apns-topic") { topics.insert(topic) }
                if let auth = request.header("authorization") { authorizations.insert(String(auth.prefix(7))) }
                return count
            }
        }
        func body(_ path: String) -> String? { lock.withLock { bodies[path] } }
        var pathCounts: [String: Int] { lock.withLock { paths } }
    }

    func token(_ i: Int) -> String { String(format: "%060x", i) + (i % 1000 == 999 ? "0000" : "abcd") }

    /// 410 Unregistered for tokens ending in 0000, 200 otherwise.
    func gateway(_ seen: Seen, clientCA: Bool = true, goAwayAt: Int? = nil) throws -> HTTP2Server {
        let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity, clientCA: clientCA ? fixtures.caCert : nil)) { request in
            let n = seen.record(request)
            if n == goAwayAt { seen.server?.goAwayAll(code: 0, debug: #"{"reason":"Shutdown"}"#) }
            let id = request.header("apns-id") ?? UUID().uuidString.lowercased()
            if request.path.hasSuffix("0000") {
                return HTTP2Response(status: 410, headers: [("apns-id", id), ("content-type", "application/json")],
                                     body: Array(#"{"reason":"Unregistered","timestamp":1700000000000}"#.utf8))
            }
            return HTTP2Response(status: 200, headers: [("apns-id", id)])
        }
        seen.server = server
        return server
    }

    func push(_ arguments: [String]) async throws -> ProcessResult {
        try await ProcessRunner.run(apnskit, ["push", fixtures.clientCert, fixtures.clientKey, "--ca-file", fixtures.caCert] + arguments, combineOutput: true)
    }

    @Test func singleNotificationDelivered() async throws {
        let seen = Seen()
        let server = try gateway(seen)
        defer { server.stop() }
        let result = try await push(["--gateway", "localhost:\(server.port)", "--token", token(1), "--alert", "Hello", "--badge", "3"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("delivered to \(token(1))"), "\(result.output)")
        #expect(seen.topics == ["com.example.app"])
        #expect(seen.body("/3/device/\(token(1))") == #"{"aps":{"alert":"Hello","badge":3}}"#)
    }

    @Test func voipTopicGetsItsSuffix() async throws {
        let seen = Seen()
        let server = try gateway(seen)
        defer { server.stop() }
        let result = try await push(["--gateway", "localhost:\(server.port)", "--token", token(2), "--push-type", "voip", "--alert", "Ring"])
        #expect(result.status == 0, "\(result.output)")
        #expect(seen.topics == ["com.example.app.voip"])
    }

    @Test func singleNotificationRejectedPrintsReason() async throws {
        let seen = Seen()
        let server = try gateway(seen)
        defer { server.stop() }
        let result = try await push(["--gateway", "localhost:\(server.port)", "--token", token(999), "--alert", "Hi", "--format", "json"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains(#""reason":"Unregistered""#), "\(result.output)")
        #expect(result.output.contains(#""rejected":1"#), "\(result.output)")
    }

    @Test func tokenAuthSendsABearerToken() async throws {
        let seen = Seen()
        let server = try gateway(seen, clientCA: false)
        defer { server.stop() }
        let result = try await ProcessRunner.run(apnskit, ["push", "--auth-key", fixtures.authKey, "--team-id", "TEAMID1234", "--topic", "com.example.app",
                                                          "--ca-file", fixtures.caCert, "--gateway", "localhost:\(server.port)", "--token", token(3), "--alert", "Hi"], combineOutput: true)
        #expect(result.status == 0, "\(result.output)")
        #expect(seen.authorizations == ["bearer "])
    }

    @Test func batchOfTenThousandWithResultsAndInvalidTokens() async throws {
        let seen = Seen()
        let server = try gateway(seen)
        defer { server.stop() }
        let dir = fixtures.dir + "/batch-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var lines = ["# tokens"]
        for i in 0..<10_000 { lines.append(i == 5 ? "\(token(i)) {\"aps\":{\"alert\":\"per line\"}}" : token(i)) }
        lines.insert("not-a-token", at: 100)
        lines.insert("\(token(20_000)) {broken", at: 200)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/tokens.txt"))
        let result = try await push(["--gateway", "localhost:\(server.port)", "--tokens", dir + "/tokens.txt", "--alert", "Batch",
                                     "--results", dir + "/results.jsonl", "--invalid-tokens", dir + "/remove.txt",
                                     "--connections", "2", "--concurrency", "10", "--format", "json"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains(#""delivered":9990"#), "\(result.output)")
        #expect(result.output.contains(#""rejected":12"#), "\(result.output)")
        #expect(result.output.contains(#""invalid":2"#), "\(result.output)")
        #expect(!result.output.contains(" done, "), "progress is drawn only when stderr is a terminal")
        let resultLines = try String(contentsOfFile: dir + "/results.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(resultLines.count == 10_002)
        var indexes = Set<Int>()
        var resent = Set<String>()
        for line in resultLines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            indexes.insert(object["index"] as! Int)
            if let attempts = object["attempts"] as? Int, attempts > 1 { resent.insert("/3/device/" + (object["token"] as! String)) }
        }
        #expect(indexes.count == 10_002)
        #expect(resultLines.filter { $0.contains(#""status":"invalid""#) }.count == 2)
        let removed = try String(contentsOfFile: dir + "/remove.txt", encoding: .utf8).split(separator: "\n").map(String.init)
        // APNs' refusals, and the malformed token (it can never be delivered); not the line
        // whose token is fine but whose payload is broken.
        #expect(Set(removed) == Set((0..<10).map { token($0 * 1000 + 999) } + ["not-a-token"]), "\(removed)")
        #expect(seen.body("/3/device/\(token(5))") == #"{"aps":{"alert":"per line"}}"#)
        #expect(seen.body("/3/device/\(token(6))") == #"{"aps":{"alert":"Batch"}}"#)
        // Sent once each, except those the results say were sent again (a slow, loaded host
        // can time a request out; the sender then retries and counts it).
        #expect(seen.pathCounts.filter { $0.value > 1 }.keys.allSatisfy { resent.contains($0) }, "\(seen.pathCounts.filter { $0.value > 1 })")
    }

    @Test func goAwayMidBatchReconnectsAndDeliversEveryOne() async throws {
        let seen = Seen()
        let server = try gateway(seen, goAwayAt: 1500)
        defer { server.stop() }
        let dir = fixtures.dir + "/goaway-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let tokens = (0..<3000).map { String(format: "%060x", $0) + "abcd" }
        try Data((tokens.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/tokens.txt"))
        let result = try await push(["--gateway", "localhost:\(server.port)", "--tokens", dir + "/tokens.txt", "--alert", "x",
                                     "--results", dir + "/results.jsonl", "--concurrency", "10", "--format", "json"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(#""delivered":3000"#), "\(result.output)")
        #expect(!result.output.contains(#""reconnects":0,"#), "\(result.output)")
        let resultLines = try String(contentsOfFile: dir + "/results.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(resultLines.count == 3000)
        #expect(Set(seen.pathCounts.keys).count == 3000)
    }

    @Test func closedPortExitsFour() async throws {
        let closed = ReservedPort()
        defer { withExtendedLifetime(closed) {} }
        let result = try await push(["--gateway", "127.0.0.1:\(closed.port)", "--token", token(1), "--alert", "x"])
        #expect(result.status == 4, "\(result.output)")
        #expect(result.output.contains("refused"), "\(result.output)")
    }

    @Test func unreadableTokenFileExitsThree() async throws {
        let result = try await push(["--gateway", "127.0.0.1:1", "--tokens", "/nonexistent/tokens.txt", "--alert", "x"])
        #expect(result.status == 3, "\(result.output)")
    }

    @Test func missingTokenIsAUsageError() async throws {
        let result = try await push(["--alert", "x"])
        #expect(result.status == 2, "\(result.output)")
    }

    @Test func nghttpdAnswersWithCertificateAuth() async throws {
        // nghttpd serves files: a token whose path exists gets 200, any other 404.
        try FileManager.default.createDirectory(atPath: fixtures.docroot + "/3/device", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: fixtures.docroot + "/3/device/\(token(7))"))
        let fixtures = self.fixtures
        let (server, port) = try await Peers.nghttpd(cert: fixtures.serverCert, key: fixtures.serverKey)
        defer { server.kill() }
        let ok = try await push(["--gateway", "localhost:\(port)", "--token", token(7), "--alert", "x"])
        #expect(ok.status == 0, "\(ok.output)")
        let missing = try await push(["--gateway", "localhost:\(port)", "--token", token(8), "--alert", "x"])
        #expect(missing.status == 1, "\(missing.output)")
        #expect(missing.output.contains("404"), "\(missing.output)")
    }

    @Test func droppedConnectionMidBatchLosesNothingAndCountsDuplicates() async throws {
        let seen = Seen()
        let server = try gateway(seen)
        defer { server.stop() }
        let (relay, port) = try await DroppingRelay.start(target: server.port, cutAfter: 40_000)
        defer { relay.kill() }
        let dir = fixtures.dir + "/drop-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let tokens = (0..<3000).map { String(format: "%060x", $0) + "abcd" }
        try Data((tokens.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/tokens.txt"))
        let result = try await push(["--gateway", "localhost:\(port)", "--tokens", dir + "/tokens.txt", "--alert", "x",
                                     "--results", dir + "/results.jsonl", "--concurrency", "10", "--format", "json"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(#""delivered":3000"#), "\(result.output)")
        #expect(!result.output.contains(#""reconnects":0,"#), "\(result.output)")
        var indexes = Set<Int>()
        var duplicated = Set<String>()
        for line in try String(contentsOfFile: dir + "/results.jsonl", encoding: .utf8).split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            indexes.insert(object["index"] as! Int)
            if object["possibly_duplicated"] as? Bool == true || (object["attempts"] as? Int ?? 1) > 1 {
                duplicated.insert("/3/device/" + (object["token"] as! String))
            }
        }
        #expect(indexes.count == 3000)
        // Every token reached the server; any seen twice is one the results flag.
        #expect(seen.pathCounts.count == 3000)
        #expect(seen.pathCounts.filter { $0.value > 1 }.keys.allSatisfy { duplicated.contains($0) })
    }

    @Test func tlsServerWithoutHTTP2ExitsFour() async throws {
        let fixtures = self.fixtures
        let (server, port) = try await Peers.sServer(cert: fixtures.serverCert, key: fixtures.serverKey)
        defer { server.kill() }
        let result = try await push(["--gateway", "localhost:\(port)", "--token", token(1), "--alert", "x"])
        // s_server stops after 4 accepts, so the last of the pool's attempts may be refused.
        #expect(result.status == 4, "\(result.output)")
        // The last connect's failure, in verify's words: not HTTP/2, or refused once s_server quit.
        #expect(result.output.contains("\(port)") && (result.output.contains("HTTP/2") || result.output.contains("refused")), "\(result.output)")
    }

    @Test func unreadableCAFileExitsThree() async throws {
        let result = try await ProcessRunner.run(apnskit, ["push", fixtures.clientCert, fixtures.clientKey, "--ca-file", "/nonexistent/ca.pem",
                                                          "--gateway", "127.0.0.1:1", "--token", token(1), "--alert", "x"], combineOutput: true)
        #expect(result.status == 3, "\(result.output)")
        #expect(result.output.contains("/nonexistent/ca.pem"), "\(result.output)")
    }

    @Test func nghttpdRequiringAClientCertificate() async throws {
        // nghttpd -V ends the handshake when the client presents no certificate.
        try FileManager.default.createDirectory(atPath: fixtures.docroot + "/3/device", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: fixtures.docroot + "/3/device/\(token(9))"))
        let fixtures = self.fixtures
        let server = try await BackgroundProcess.serving(tool("nghttpd")) { port in
            ["--address=127.0.0.1", "-V", "-d", fixtures.docroot, String(port), fixtures.serverKey, fixtures.serverCert]
        }
        defer { server.kill() }
        let port = server.port
        let certificate = try await push(["--gateway", "localhost:\(port)", "--token", token(9), "--alert", "x"])
        #expect(certificate.status == 0, "\(certificate.output)")
        let tokenAuth = try await ProcessRunner.run(apnskit, ["push", "--auth-key", fixtures.authKey, "--team-id", "TEAMID1234", "--topic", "com.example.app",
                                                             "--ca-file", fixtures.caCert, "--gateway", "localhost:\(port)", "--token", token(9), "--alert", "x"], combineOutput: true)
        // The gateway refused the connection for want of a certificate: a credentials problem
        // (exit 1, as verify says), not a network one.
        #expect(tokenAuth.status == 1, "\(tokenAuth.output)")
        #expect(tokenAuth.output.contains("certificate_required"), "\(tokenAuth.output)")
    }
}
