// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation

/// `apnskit verify` as a library: connect to an APNs gateway with the credentials, and report
/// step by step what happened and whether the credentials were accepted.
///
/// The answer comes from the gateway itself: after the TLS handshake (where a server may
/// reject the client certificate with an alert) it sends a harmless probe — a push to an
/// all-zero device token. APNs checks credentials before the token, so 400 BadDeviceToken
/// means "credentials fine", 403 means "not accepted", and the reason says what to fix.
package struct GatewayCheck: Sendable {
    package enum Credentials: Sendable {
        /// Certificate-based trust: the identity is presented in the TLS handshake.
        case certificate(APNsIdentity)
        /// Token-based trust: a .p8 key, its key id and the team id.
        case token(key: PrivateKey, keyID: String, teamID: String)
    }

    package var endpoint: Endpoint
    package var credentials: Credentials
    package var trust: TLSConfiguration.Trust
    /// The legacy binary gateway (port 2195): TLS only, no HTTP/2 probe.
    package var legacy: Bool
    package var timeout: Double
    /// apns-topic for the probe; defaults to the certificate's bundle id (subject UID).
    package var topic: String?
    package var loop: EventLoop
    /// Asks the certificate's issuer whether it was revoked before connecting (nil: skip). A
    /// revoked certificate ends the check: the gateway refuses it in the handshake.
    package var revocation: RevocationChecker? = RevocationChecker()

    package init(endpoint: Endpoint, credentials: Credentials, trust: TLSConfiguration.Trust = .system, legacy: Bool = false,
                timeout: Double = 10, topic: String? = nil, loop: EventLoop = .shared) {
        self.endpoint = endpoint
        self.credentials = credentials
        self.trust = trust
        self.legacy = legacy
        self.timeout = timeout
        self.topic = topic
        self.loop = loop
    }

    /// The all-zero probe token: well-formed, never a real device.
    package static let probeToken = String(repeating: "0", count: 64)

    var identity: APNsIdentity? {
        if case .certificate(let identity) = credentials { return identity }
        return nil
    }

    /// The issuer's answer, asked on a thread of its own (OpenSSL's HTTP client blocks); nil
    /// when the certificate names no OCSP responder and no CRL.
    func askIssuer(_ identity: APNsIdentity, _ checker: RevocationChecker) async -> RevocationCheck? {
        let certificate = identity.certificate
        guard !certificate.ocspURLs.isEmpty || !certificate.crlURLs.isEmpty else { return nil }
        var candidates = identity.chain
        switch trust {
        case .caFile(let path): candidates += (try? CredentialFile.load(path, passphrases: .none).certificates) ?? []
        case .certificates(let pem): candidates += (try? CredentialFile.load(bytes: pem, label: "CA", passphrases: .none).certificates) ?? []
        case .system: candidates += (try? SystemTrustBundle.certificates()) ?? []
        }
        let issuer = RevocationChecker.issuer(of: certificate, among: candidates)
        return await checker.checkOffThread(certificate, issuer: issuer)
    }

    /// Runs the check. Never throws: every failure becomes an outcome in the report.
    package func run() async -> GatewayReport {
        var report = GatewayReport(endpoint: endpoint.description, legacy: legacy)
        var tls = TLSConfiguration.client(identity: identity, trust: trust, verification: .reportOnly)
        if legacy { tls.applicationProtocols = [] }

        switch credentials {
        case .certificate(let identity):
            let cert = identity.certificate
            let days = cert.daysLeft()
            report.step("identity", "Client certificate \(cert.subject.commonName ?? cert.subject.description), "
                + (days < 0 ? "EXPIRED \(-days) days ago" : "valid for \(days) more days") + ".")
        case .token(_, let keyID, let teamID):
            report.step("identity", "Token auth: key \(keyID), team \(teamID).")
        }
        if let identity, let revocation, let check = await askIssuer(identity, revocation) {
            report.revocation = RevocationRecord(check)
            report.step("revocation", check.summary.prefix(1).uppercased() + check.summary.dropFirst() + ".")
            if case .revoked(let at, let reason) = check.status {
                report.finish(.rejected, "The certificate was revoked on \(RevocationRecord.day(at))\(reason.map { " (\($0.name))" } ?? ""); APNs refuses it in the TLS handshake: make a new certificate in the developer portal.")
                return report
            }
        }
        do {
            let addresses = try await endpoint.resolvedAddresses()
            if let proxy = endpoint.proxy {
                report.proxy = proxy.description
                report.step("dns", "The proxy \(proxy.host) resolved to \(addresses.joined(separator: ", ")); it resolves \(endpoint.host) itself.")
            } else {
                report.step("dns", "\(endpoint.host) resolved to \(addresses.joined(separator: ", ")).")
            }
        } catch {
            report.finishWithConnectError(error, presentedCertificate: identity != nil)
            return report
        }
        report.step("connect", "Connecting to \(endpoint)\(endpoint.proxy.map { " through the proxy \($0)" } ?? "") (timeout \(Endpoint.seconds(timeout))).")
        let handshake: TLSHandshakeInfo
        var client: HTTP2Client?
        var raw: TLSClient?
        do {
            if legacy {
                raw = try await TLSClient.connect(to: endpoint, tls: tls, timeout: timeout, loop: loop)
                handshake = raw!.handshake
            } else {
                client = try await HTTP2Client.connect(to: endpoint, tls: tls, settings: .apnsClient(keepingEveryAnswerHeader: true), timeout: timeout, loop: loop)
                handshake = client!.handshake
            }
        } catch {
            report.finishWithConnectError(error, presentedCertificate: identity != nil)
            return report
        }
        defer { client?.close(); raw?.close() }

        if let proxy = endpoint.proxy {
            report.step("proxy", "The proxy \(proxy) opened a tunnel to \(endpoint) (it answered CONNECT with 2xx); TLS runs through it to the gateway.")
        }
        report.record(handshake)
        guard report.checkServerTrust(handshake) else { return report }
        if !legacy, handshake.alpn != "h2" {
            report.finish(.failed, "The server does not speak HTTP/2: it did not agree to ALPN h2 (it chose \(handshake.alpn ?? "no protocol")); is \(endpoint) the provider API?")
            return report
        }
        if identity != nil, !handshake.clientCertificateRequested {
            report.step("client-certificate", "The server did not ask for a client certificate.")
        }

        if let raw {
            await legacyVerdict(raw, &report)
        } else if let client {
            await probe(client, &report)
        }
        return report
    }

    /// Legacy gateway: no request/response. A server that rejects the certificate sends an
    /// alert (TLS 1.3: on the first read) or hangs up; silence means it is waiting for frames.
    private func legacyVerdict(_ raw: TLSClient, _ report: inout GatewayReport) async {
        do {
            if let _ = try await raw.read(timeout: min(2, timeout)) {
                report.finish(.failed, "The legacy gateway sent data before any notification; it does not behave like APNs.")
            } else {
                report.finish(.rejected, "The legacy gateway closed the connection right after the handshake: it did not accept the certificate.")
            }
        } catch let error as TransportError where error.kind == .timeout {
            report.clientCertificateAccepted = identity != nil
            report.step("client-certificate", "The gateway kept the connection open: it accepted the certificate.")
            report.finish(.accepted, "The legacy gateway accepted the certificate (TLS handshake completed and the connection stayed open).")
        } catch {
            report.finishWithConnectError(error, presentedCertificate: identity != nil)
        }
    }

    private func probe(_ client: HTTP2Client, _ report: inout GatewayReport) async {
        do {
            try await client.ready(timeout: timeout)
        } catch {
            report.finishWithConnectError(error, presentedCertificate: identity != nil)
            return
        }
        if identity != nil, client.handshake.clientCertificateRequested {
            report.clientCertificateAccepted = true
            report.step("client-certificate", "The server accepted the client certificate in the TLS handshake.")
        }
        var headers: [(name: String, value: String)] = [
            ("apns-push-type", "alert"), ("apns-priority", "10"), ("apns-expiration", "0"),
            ("content-type", "application/json"),
        ]
        let topic = self.topic ?? identity?.certificate.subject.first("UID")
        if let topic { headers.append(("apns-topic", topic)) }
        if case .token(let key, let keyID, let teamID) = credentials {
            do {
                headers.append(("authorization", "bearer " + (try APNsTokenSigner(key: key, keyID: keyID, teamID: teamID).token())))
            } catch {
                report.finish(.failed, (error as? TransportError)?.message ?? "\(error)")
                return
            }
        }
        let request = HTTP2Request(method: "POST", path: "/3/device/\(Self.probeToken)", headers: headers,
                                   body: Array(#"{"aps":{"alert":"apnskit verify probe"}}"#.utf8))
        report.step("probe", "POST /3/device/\(Self.probeToken) with apns-topic \(topic ?? "(none)").")
        do {
            let response = try await client.send(request, timeout: timeout)
            report.classify(response, tokenAuth: identity == nil, environmentHint: endpoint.host)
        } catch {
            report.finishWithConnectError(error, presentedCertificate: identity != nil)
        }
    }
}
