// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsTransport
import Foundation
import Testing
import TestSupport
import TransportTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `push` and `verify` classify a failed connection the same way (`ConnectionFailure`): for
/// each TLS or network failure, the same sentence and the same exit code from both commands,
/// the built binary against real servers. Serialized: `expiredClient()` makes its certificate
/// once, lazily, in the target's shared fixture folder, and two tests making it at once would
/// read each other's half-written files.
@Suite("push and verify: one classification of connection failures", .serialized)
struct ConnectionFailureCLITests {
    let fixtures = Fixtures.shared

    var apnskit: String { Binaries.apnskit }

    /// An APNs-like server that requires a client certificate from the test CA.
    func certificateRequiringServer() throws -> HTTP2Server {
        try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity, clientCA: fixtures.caCert)) { _ in
            HTTP2Response(status: 400, headers: [("apns-id", UUID().uuidString.lowercased())], body: Array(#"{"reason":"BadDeviceToken"}"#.utf8))
        }
    }

    /// An expired client certificate from the test CA (made once).
    func expiredClient() async throws -> (cert: String, key: String) {
        let dir = fixtures.dir
        let cert = dir + "/expired-client.pem", key = dir + "/expired-client.key"
        if !FileManager.default.fileExists(atPath: cert) {
            let openssl = tool("openssl")
            for arguments in [
                ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", dir + "/expired-client.csr",
                 "-subj", "/CN=expired client"],
                ["ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", dir + "/expired-client.csr", "-out", cert,
                 "-startdate", "20200101000000Z", "-enddate", "20200201000000Z", "-extfile", "client.ext", "-notext"],
            ] {
                let result = try await ProcessRunner.run(openssl, arguments, directory: dir, combineOutput: true)
                guard result.status == 0 else { throw ChildError("openssl \(arguments[0]) failed: \(result.output)") }
            }
        }
        return (cert, key)
    }

    struct Outcome: Equatable, CustomStringConvertible {
        let status: Int32
        let sentence: String
        var description: String { "exit \(status): \(sentence)" }

        /// push's sentence without what it adds for a gateway it could not reach after its
        /// reconnects, " (N attempts in a row, X s in all)": the rest is verify's, word for word.
        var withoutAttempts: Outcome {
            guard let range = sentence.range(of: #" \(\d+ attempts in a row, [0-9.]+ s in all\)\.$"#, options: .regularExpression) else { return self }
            return Outcome(status: status, sentence: sentence.replacingCharacters(in: range, with: "."))
        }
    }

    /// The exit code and the `apnskit: ...` error line.
    func outcome(_ arguments: [String]) async throws -> Outcome {
        let result = try await ProcessRunner.run(apnskit, arguments, combineOutput: true)
        let line = result.output.split(separator: "\n").last { $0.hasPrefix("apnskit: ") }.map(String.init) ?? "(no error line) \(result.output)"
        return Outcome(status: result.status, sentence: line)
    }

    /// verify and push with the same credentials against `port`.
    func both(_ credentials: [String], port: Int, timeout: String = "10", caFile: String? = nil) async throws -> (verify: Outcome, push: Outcome) {
        let gateway = ["--gateway", "localhost:\(port)", "--ca-file", caFile ?? fixtures.caCert, "--timeout", timeout]
        let verify = try await outcome(["verify"] + credentials + gateway)
        let push = try await outcome(["push"] + credentials + gateway + ["--topic", "com.example.app", "--token", String(repeating: "ab", count: 32),
                                                                          "--alert", "x"])
        return (verify, push)
    }

    var certificate: [String] { [fixtures.clientCert, fixtures.clientKey] }

    @Test("TLS alert unknown_ca: rejected, exit 1, one sentence")
    func unknownCA() async throws {
        let server = try certificateRequiringServer()
        defer { server.stop() }
        let (verify, push) = try await both([fixtures.otherClientCert, fixtures.otherClientKey], port: server.port)
        #expect(verify.status == 1 && verify.sentence.contains("unknown_ca"), "\(verify)")
        #expect(push.withoutAttempts == verify, "\(push)")
    }

    @Test("TLS alert certificate_required (token auth, no certificate): rejected, exit 1, one sentence")
    func certificateRequired() async throws {
        let server = try certificateRequiringServer()
        defer { server.stop() }
        let (verify, push) = try await both(["--auth-key", fixtures.authKey, "--team-id", "TEAMID1234"], port: server.port)
        #expect(verify.status == 1 && verify.sentence.contains("certificate_required"), "\(verify)")
        #expect(push.withoutAttempts == verify, "\(push)")
    }

    @Test("TLS alert certificate_expired: rejected, exit 1, one sentence")
    func certificateExpired() async throws {
        let server = try certificateRequiringServer()
        defer { server.stop() }
        let expired = try await expiredClient()
        let (verify, push) = try await both([expired.cert, expired.key], port: server.port)
        #expect(verify.status == 1 && verify.sentence.contains("certificate_expired"), "\(verify)")
        #expect(push.withoutAttempts == verify, "\(push)")
    }

    @Test("Handshake timeout (a server that accepts and never answers): exit 4, one sentence; push's names its attempts and their time")
    func handshakeTimeout() async throws {
        let server = SilentListener()
        let (verify, push) = try await both(certificate, port: server.port, timeout: "1")
        #expect(verify.status == 4 && verify.sentence.contains("did not complete the TLS handshake within 1 second."), "\(verify)")
        // push tries 1 + 4 times, each bounded by --timeout: verify's sentence, plus how many
        // attempts and how long they took in all (issue 22: 10.6 s for --timeout 2, one named).
        #expect(push.status == verify.status, "\(push)")
        #expect(push.sentence.hasPrefix(String(verify.sentence.dropLast()) + " (5 attempts in a row, "), "\(push)")
        #expect(push.sentence.hasSuffix(" s in all)."), "\(push)")
    }

    /// A server that presents `cert`, asks for no client certificate and answers anything.
    func plainServer(cert: String, key: String) throws -> HTTP2Server {
        try HTTP2Server.start(tls: .server(identity: try fixtures.identity(cert: cert, key: key))) { _ in
            HTTP2Response(status: 400, headers: [("apns-id", UUID().uuidString.lowercased())], body: Array(#"{"reason":"BadDeviceToken"}"#.utf8))
        }
    }

    @Test("Untrusted server chain (the server's CA is not in --ca-file): exit 4, one sentence")
    func untrustedChain() async throws {
        let server = try plainServer(cert: fixtures.serverCert, key: fixtures.serverKey)
        defer { server.stop() }
        let (verify, push) = try await both(certificate, port: server.port, caFile: fixtures.otherCACert)
        #expect(verify.status == 4 && verify.sentence.contains("did not verify") && verify.sentence.contains("apnskit Test Root CA"), "\(verify)")
        #expect(push.withoutAttempts == verify, "\(push)")
    }

    @Test("Server certificate for another host name: exit 4, one sentence")
    func hostnameMismatch() async throws {
        let server = try plainServer(cert: fixtures.wrongHostCert, key: fixtures.wrongHostKey)
        defer { server.stop() }
        let (verify, push) = try await both(certificate, port: server.port)
        #expect(verify.status == 4 && verify.sentence.contains("not valid for localhost"), "\(verify)")
        #expect(push.withoutAttempts == verify, "\(push)")
    }

    @Test("Connection refused: exit 4, one sentence")
    func refused() async throws {
        let closed = ReservedPort()
        defer { withExtendedLifetime(closed) {} }
        let (verify, push) = try await both(certificate, port: closed.port)
        #expect(verify.status == 4, "\(verify)")
        #expect(push.withoutAttempts == verify, "\(push)")
    }

    @Test("A server that answers with garbage instead of TLS: exit 4, one sentence")
    func garbage() async throws {
        let server = try GarbageServer()
        defer { server.stop() }
        let (verify, push) = try await both(certificate, port: server.port)
        #expect(verify.status == 4, "\(verify)")
        #expect(push.withoutAttempts == verify, "\(push)")
    }
}

/// A plain TCP server on loopback that answers every connection with an HTTP/1.1 error page
/// (not TLS) and closes it.
final class GarbageServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw ChildError("cannot listen on loopback: errno \(errno)")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    /// Stops accepting; the thread closes the socket.
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    private func serve() {
        let page = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            _ = page.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(client)
        }
        close(listener)
    }
}
