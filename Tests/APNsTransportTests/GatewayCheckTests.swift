// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsSender
import APNsTransport
import Foundation
import Testing
import TestSupport
import TransportTestSupport

/// `GatewayCheck` (what `apnskit verify` runs): verdicts from APNs-like servers, and clean
/// failures against servers it must not trust or cannot talk to.
@Suite("Gateway check (verify)")
struct GatewayCheckTests {
    let fixtures = Fixtures.shared

    func check(port: Int, host: String = "localhost", credentials: GatewayCheck.Credentials? = nil, trust: String? = nil,
               legacy: Bool = false, timeout: Double = 10) throws -> GatewayCheck {
        GatewayCheck(endpoint: Endpoint(host: host, port: port), credentials: try credentials ?? .certificate(fixtures.clientIdentity),
                     trust: .caFile(trust ?? fixtures.caCert), legacy: legacy, timeout: timeout)
    }

    /// A mock provider API: 400 BadDeviceToken when the client certificate's UID is the topic
    /// (or a bearer token is present), 403 `reason` otherwise.
    func apnsLikeServer(requireCertificate: Bool, reason: String = "BadCertificate") throws -> HTTP2Server {
        try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity, clientCA: requireCertificate ? fixtures.caCert : nil)) { request in
            let uid = request.clientCertificate?.subject.first("UID")
            let accepted = (uid != nil && uid == request.header("apns-topic")) || (request.header("authorization")?.hasPrefix("bearer ") ?? false)
            let body = #"{"reason":"\#(accepted && reason != "BadCertificateEnvironment" ? "BadDeviceToken" : reason)"}"#
            return HTTP2Response(status: accepted && reason != "BadCertificateEnvironment" ? 400 : 403,
                                 headers: [("apns-id", UUID().uuidString.lowercased()), ("content-type", "application/json")],
                                 body: Array(body.utf8))
        }
    }

    @Test func acceptedCertificateGivesBadDeviceToken() async throws {
        let server = try apnsLikeServer(requireCertificate: true)
        defer { server.stop() }
        let report = try await check(port: server.port).run()
        #expect(report.outcome == .accepted, "\(report.summary)")
        #expect(report.probe?.status == 400)
        #expect(report.probe?.reason == "BadDeviceToken")
        #expect(report.chainVerified == true)
        #expect(report.hostnameMatches == true)
        #expect(report.alpn == "h2")
        #expect(report.clientCertificateRequested == true)
        #expect(report.clientCertificateAccepted == true)
        #expect(report.serverChain.first?.subject == "CN=localhost")
    }

    @Test func wrongEnvironmentIsRejectedWithAFix() async throws {
        let server = try apnsLikeServer(requireCertificate: false, reason: "BadCertificateEnvironment")
        defer { server.stop() }
        let report = try await check(port: server.port).run()
        #expect(report.outcome == .rejected)
        #expect(report.summary.contains("BadCertificateEnvironment"))
        #expect(report.summary.contains("environment"))
    }

    @Test func tokenAuthSendsAnES256Token() async throws {
        let server = try apnsLikeServer(requireCertificate: false)
        defer { server.stop() }
        let key = try IdentityLoader.privateKey(fixtures.authKey, passphrases: .none)
        let report = try await check(port: server.port, credentials: .token(key: key, keyID: "ABC123DEFG", teamID: "TEAMID1234")).run()
        #expect(report.outcome == .accepted, "\(report.summary)")
    }

    @Test func certificateFromAnotherCAIsRejectedInTheHandshake() async throws {
        let server = try apnsLikeServer(requireCertificate: true)
        defer { server.stop() }
        let report = try await check(port: server.port, credentials: .certificate(fixtures.otherClientIdentity)).run()
        #expect(report.outcome == .rejected, "\(report.summary)")
        #expect(report.alert == "unknown_ca")
        #expect(report.summary.contains("unknown_ca"))
        #expect(report.clientCertificateAccepted == false)
    }

    @Test func wrongHostNameFails() async throws {
        let (server, port) = try await Peers.nghttpd(cert: fixtures.wrongHostCert, key: fixtures.wrongHostKey)
        defer { server.kill() }
        let report = try await check(port: port).run()
        #expect(report.outcome == .failed)
        #expect(report.hostnameMatches == false)
        #expect(report.summary.contains("not valid for localhost"), "\(report.summary)")
    }

    @Test func untrustedServerCAFailsNamingTheCA() async throws {
        let (server, port) = try await Peers.nghttpd(cert: fixtures.serverCert, key: fixtures.serverKey)
        defer { server.kill() }
        let report = try await check(port: port, trust: fixtures.otherCACert).run()
        #expect(report.outcome == .failed)
        #expect(report.chainVerified == false)
        #expect(report.missingCA == "apnskit Test Root CA", "\(report.summary)")
    }

    @Test func missingUSERTrustIsNamed() async throws {
        let (server, port) = try await Peers.nghttpd(cert: fixtures.usertrustServerCert, key: fixtures.usertrustServerKey)
        defer { server.kill() }
        let report = try await check(port: port).run()
        #expect(report.outcome == .failed)
        #expect(report.missingCA == "USERTrust RSA Certification Authority")
        #expect(report.summary.contains("USERTrust RSA Certification Authority"), "\(report.summary)")
    }

    @Test func expiredServerCertificateFails() async throws {
        let (server, port) = try await Peers.nghttpd(cert: fixtures.expiredCert, key: fixtures.expiredKey)
        defer { server.kill() }
        let report = try await check(port: port).run()
        #expect(report.outcome == .failed)
        #expect(report.verifyError == "certificate has expired", "\(report.summary)")
        #expect(report.serverChain.first?.expired == true)
    }

    @Test func tls10OnlyServerFails() async throws {
        let (server, port) = try await Peers.sServer(cert: fixtures.serverCert, key: fixtures.serverKey,
                                               extra: ["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"])
        defer { server.kill() }
        let report = try await check(port: port).run()
        #expect(report.outcome == .failed)
        #expect(report.summary.contains("TLS 1.2 or newer"), "\(report.summary)")
    }

    @Test func serverWithoutH2Fails() async throws {
        let (server, port) = try await Peers.sServer(cert: fixtures.serverCert, key: fixtures.serverKey)
        defer { server.kill() }
        let report = try await check(port: port).run()
        #expect(report.outcome == .failed)
        #expect(report.alpn == nil)
        #expect(report.summary.contains("HTTP/2"), "\(report.summary)")
    }

    @Test func closedPortFails() async throws {
        let closed = ReservedPort()
        defer { withExtendedLifetime(closed) {} }
        let report = try await check(port: closed.port, host: "127.0.0.1").run()
        #expect(report.outcome == .failed)
        #expect(report.summary.contains("refused"), "\(report.summary)")
    }

    @Test func silentServerTimesOut() async throws {
        let listener = SilentListener()
        let report = try await check(port: listener.port, host: "127.0.0.1", timeout: 1).run()
        #expect(report.outcome == .failed)
        #expect(report.summary.contains("did not complete the TLS handshake within 1 second"), "\(report.summary)")
        _ = listener
    }

    @Test func legacyGatewayAcceptsTheCertificate() async throws {
        let (server, port) = try await Peers.sServer(cert: fixtures.serverCert, key: fixtures.serverKey,
                                               extra: ["-Verify", "1", "-CAfile", fixtures.caCert, "-verify_return_error"])
        defer { server.kill() }
        let accepted = try await check(port: port, legacy: true, timeout: 2).run()
        #expect(accepted.outcome == .accepted, "\(accepted.summary)")
        let rejected = try await check(port: port, credentials: .certificate(fixtures.otherClientIdentity), legacy: true, timeout: 2).run()
        #expect(rejected.outcome == .rejected, "\(rejected.summary)")
    }
}

/// With TLS 1.2 a server rejects the client certificate inside the handshake itself.
@Suite("Gateway check over TLS 1.2")
struct GatewayCheckTLS12Tests {
    let fixtures = Fixtures.shared

    @Test func rejectionInsideTheTLS12HandshakeNamesTheAlert() async throws {
        var tls = TLSConfiguration.server(identity: try fixtures.serverIdentity, clientCA: fixtures.caCert)
        tls.maximumVersion = .tls1_2
        let server = try HTTP2Server.start(tls: tls) { _ in HTTP2Response(status: 400, body: Array(#"{"reason":"BadDeviceToken"}"#.utf8)) }
        defer { server.stop() }
        let check = GatewayCheck(endpoint: Endpoint(host: "localhost", port: server.port),
                                 credentials: .certificate(try fixtures.otherClientIdentity), trust: .caFile(fixtures.caCert))
        let report = await check.run()
        #expect(report.outcome == .rejected, "\(report.summary)")
        #expect(report.alert == "unknown_ca")
        #expect(report.tlsVersion == nil)

        let good = GatewayCheck(endpoint: Endpoint(host: "localhost", port: server.port),
                                credentials: .certificate(try fixtures.clientIdentity), trust: .caFile(fixtures.caCert))
        let accepted = await good.run()
        #expect(accepted.outcome == .accepted, "\(accepted.summary)")
        #expect(accepted.tlsVersion == "TLSv1.2")
    }
}
