// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsTransport
import Foundation
import Testing
import TestSupport
import TransportTestSupport

/// Our client's certificate presentation against `nghttpx --verify-client`: a proxy that
/// demands client certificates from one CA, like APNs does, in front of `nghttpd --no-tls`.
@Suite("Client certificates against nghttpx")
struct ClientCertificateInteropTests {
    let fixtures = Fixtures.shared

    /// Starts nghttpd (h2c backend) and nghttpx (TLS frontend verifying clients); the caller
    /// stops both with the returned closure.
    func startProxy() async throws -> (stop: @Sendable () -> Void, port: Int) {
        let fixtures = self.fixtures
        let backend = try await BackgroundProcess.serving(tool("nghttpd")) { port in
            ["--no-tls", "--address=127.0.0.1", "-d", fixtures.docroot, String(port)]
        }
        do {
            let proxy = try await BackgroundProcess.serving(tool("nghttpx")) { port in
                ["--conf=/dev/null", "--single-process", "--workers=1", "--no-ocsp",
                 "--frontend=127.0.0.1,\(port)", "--backend=127.0.0.1,\(backend.port);;proto=h2",
                 "--verify-client", "--verify-client-cacert=\(fixtures.caCert)",
                 fixtures.serverKey, fixtures.serverCert]
            }
            return ({ proxy.kill(); backend.kill() }, proxy.port)
        } catch {
            backend.kill()
            throw error
        }
    }

    func tls(_ identity: APNsIdentity?) -> TLSConfiguration {
        .client(identity: identity, trust: .caFile(fixtures.caCert))
    }

    @Test func certificateFromTheTrustedCAIsAccepted() async throws {
        let (stop, port) = try await startProxy()
        defer { stop() }
        let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: port), tls: tls(try fixtures.clientIdentity))
        defer { client.close() }
        #expect(client.handshake.clientCertificateRequested)
        #expect(client.handshake.clientCertificateSent)
        try await client.ready()
        let response = try await client.send(HTTP2Request(method: "GET", path: "/index.html"), timeout: 10)
        #expect(response.status == 200)
        #expect(response.bodyText == "hello from nghttpd\n")
    }

    /// Connects and waits for the server's verdict; returns the alert it sent, if any.
    func verdict(_ identity: APNsIdentity?, port: Int) async throws -> TLSAlert? {
        do {
            let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: port), tls: tls(identity))
            defer { client.close() }
            try await client.ready()
            _ = try await client.send(HTTP2Request(method: "GET", path: "/index.html"), timeout: 10)
            return nil
        } catch let error as TransportError {
            if case .tlsAlert(let alert) = error.kind { return alert }
            throw error
        }
    }

    @Test func certificateFromAnotherCAIsRejectedWithAnAlert() async throws {
        let (stop, port) = try await startProxy()
        defer { stop() }
        let alert = try await verdict(try fixtures.otherClientIdentity, port: port)
        #expect(alert == .unknownCA)
        #expect(alert?.isAboutClientCertificate == true)
    }

    @Test func missingCertificateIsRejectedWithAnAlert() async throws {
        let (stop, port) = try await startProxy()
        defer { stop() }
        let alert = try await verdict(nil, port: port)
        #expect(alert == .certificateRequired)
    }
}
