// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation

/// What `GatewayCheck` found, step by step; encodes to the stable JSON `apnskit verify
/// --format json` prints.
package struct GatewayReport: Sendable, Encodable {
    package enum Outcome: String, Sendable, Encodable {
        /// The gateway accepted the credentials (CLI exit 0).
        case accepted
        /// The gateway refused them, in the handshake or in its answer (exit 1).
        case rejected
        /// No verdict: could not connect, handshake failed, untrusted server (exit 4).
        case failed
    }

    package struct Step: Sendable, Encodable {
        package let name: String
        package let detail: String
    }

    package struct ChainEntry: Sendable, Encodable {
        package let subject: String
        package let issuer: String
        package let notAfter: String
        package let expired: Bool
    }

    /// What the caller can change to fix a failed or rejected check. The summary says it in
    /// words; the CLI adds its flag (`--ca-file`, `--topic`, ...), a library user their own.
    package enum Hint: String, Sendable, Encodable {
        /// Trust the CA the trust store lacks (`missingCA`).
        case trustAnchor = "trust_anchor"
        /// Use the bundle id the certificate was issued for as the topic.
        case topic
        /// The certificate is for production: use the production gateway.
        case productionEnvironment = "production_environment"
        /// The certificate is for the sandbox: use the sandbox gateway.
        case sandboxEnvironment = "sandbox_environment"
        /// Check the provider token's key id and team id.
        case keyAndTeam = "key_and_team"
        /// Give credentials: a certificate or an auth key.
        case credentials
    }

    package struct Probe: Sendable, Encodable {
        package let status: Int
        package let reason: String?
        package let apnsID: String?
    }

    package let endpoint: String
    package let legacy: Bool
    package private(set) var outcome: Outcome = .failed
    /// One sentence: the verdict and, when not accepted, what to fix.
    package private(set) var summary = ""
    package private(set) var steps: [Step] = []
    /// The revocation step's answer (certificate auth, when the certificate names an OCSP
    /// responder or CRL); nil when not asked.
    package internal(set) var revocation: RevocationRecord?
    /// The HTTP proxy the connection went through (`user:***@host:port`), and its answer to
    /// CONNECT when it refused; nil without a proxy.
    package internal(set) var proxy: String?
    package internal(set) var proxyStatus: Int?
    package private(set) var remoteAddress: String?
    package private(set) var tlsVersion: String?
    package private(set) var cipher: String?
    package private(set) var alpn: String?
    package private(set) var serverChain: [ChainEntry] = []
    package private(set) var chainVerified: Bool?
    package private(set) var verifyError: String?
    /// The CA the trust store lacks (e.g. "USERTrust RSA Certification Authority").
    package private(set) var missingCA: String?
    package private(set) var hostnameMatches: Bool?
    package private(set) var clientCertificateRequested: Bool?
    package internal(set) var clientCertificateAccepted: Bool?
    /// The TLS alert that ended the connection, by name.
    package private(set) var alert: String?
    package private(set) var probe: Probe?
    package private(set) var hint: Hint?

    init(endpoint: String, legacy: Bool) {
        self.endpoint = endpoint
        self.legacy = legacy
    }

    mutating func step(_ name: String, _ detail: String) { steps.append(Step(name: name, detail: detail)) }

    mutating func finish(_ outcome: Outcome, _ summary: String) {
        self.outcome = outcome
        self.summary = summary
    }

    mutating func record(_ info: TLSHandshakeInfo) {
        remoteAddress = info.remoteAddress
        tlsVersion = info.protocolVersion
        cipher = info.cipher
        alpn = info.alpn
        step("tcp", "TCP connection established to \(info.remoteAddress).")
        step("tls", "TLS handshake completed: \(info.protocolVersion), cipher \(info.cipher).")
        step("alpn", info.alpn.map { "ALPN: the server chose \($0)." } ?? "ALPN: the server chose no protocol.")
        let formatter = ISO8601DateFormatter()
        let now = Date()
        serverChain = info.peerChain.map {
            ChainEntry(subject: $0.subject.description, issuer: $0.issuer.description,
                       notAfter: formatter.string(from: $0.notAfter), expired: $0.notAfter < now)
        }
        for (index, entry) in serverChain.enumerated() {
            step("chain", "Server certificate \(index): \(entry.subject) (issuer \(entry.issuer)), \(entry.expired ? "EXPIRED" : "valid until") \(entry.notAfter).")
        }
        chainVerified = info.chainVerified
        verifyError = info.verifyError
        missingCA = info.missingIssuer
        hostnameMatches = info.hostnameMatches
        clientCertificateRequested = info.clientCertificateRequested
        if info.clientCertificateRequested {
            step("client-certificate", info.clientCertificateSent ? "The server asked for a client certificate; ours was sent."
                                                                  : "The server asked for a client certificate; we had none to send.")
        }
    }

    /// Chain and host name; false (with the report finished) when the server is not trusted.
    /// The sentence is `ConnectionFailure`'s, the one `push` gives when full verification
    /// aborts the same handshake.
    mutating func checkServerTrust(_ info: TLSHandshakeInfo) -> Bool {
        let trust = info.trustFailure(host: endpointHost)
        if case .chain(_, let missing)? = trust?.problem {
            let sentence = ConnectionFailure(untrusted: trust!).sentence
            if let missing, !ConnectionFailure.isAppleGatewayRoot(missing) { hint = .trustAnchor }
            step("verify", sentence)
            finish(.failed, sentence)
            return false
        }
        step("verify", "The server's certificate chain verified.")
        if let trust {
            let sentence = ConnectionFailure(untrusted: trust).sentence
            step("hostname", sentence)
            finish(.failed, sentence)
            return false
        }
        step("hostname", "The server's certificate matches the host name.")
        return true
    }

    private var endpointHost: String {
        (try? Endpoint(parsing: endpoint).host) ?? endpoint
    }

    /// Turns a connect/handshake/probe failure into an outcome through `ConnectionFailure`,
    /// the classification the sender uses too: an alert about our certificate means
    /// "rejected"; anything else means "could not get a verdict".
    mutating func finishWithConnectError(_ error: Error, presentedCertificate: Bool) {
        let failure = ConnectionFailure(error, endpoint: endpoint, presentedCertificate: presentedCertificate)
        alert = failure.alert ?? alert
        if let error = error as? TransportError, case .proxy(let status) = error.kind {
            proxyStatus = status == 0 ? nil : status
            step("proxy", failure.sentence)
        }
        switch failure.verdict {
        case .credentialsRejected:
            clientCertificateAccepted = false
            step("client-certificate", failure.sentence)
            finish(.rejected, failure.sentence)
        case .unreachable:
            finish(.failed, failure.sentence)
        }
    }

    /// Reads the probe's answer (apns-protocol.md §1 reasons).
    mutating func classify(_ response: HTTP2Response, tokenAuth: Bool, environmentHint: String) {
        let reason = Self.reason(in: response.body)
        probe = Probe(status: response.status, reason: reason, apnsID: response.header("apns-id"))
        let answer = "\(response.status)\(reason.map { " " + $0 } ?? "")"
        step("probe", "The server answered \(answer).")
        let credentials = tokenAuth ? "the provider token" : "the certificate"
        switch (response.status, reason.flatMap(APNsReason.init(rawValue:))) {
        case (200, _):
            finish(.accepted, "The gateway accepted \(credentials) (it answered 200).")
        case (400, .badDeviceToken), (400, .deviceTokenNotForTopic), (410, _):
            finish(.accepted, "The gateway accepted \(credentials) (it answered \(answer) for the all-zero probe token, as expected).")
        case (400, .topicDisallowed), (400, .badTopic), (400, .missingTopic):
            hint = .topic
            finish(.rejected, "The gateway accepted the connection but not the topic (\(answer)): use the bundle id the certificate was issued for.")
        case (403, .badCertificateEnvironment):
            // Name the way out only when the host says which gateway this was; a custom
            // --gateway (a mock, a proxy) could be either.
            let fix: String
            if environmentHint.contains(APNsEnvironment.sandbox.host) {
                fix = "the certificate is for production: use the production gateway, or a development certificate for the sandbox"
                hint = .productionEnvironment
            } else if environmentHint.contains(APNsEnvironment.production.host) {
                fix = "the certificate is for the sandbox: use the sandbox gateway, or a production certificate"
                hint = .sandboxEnvironment
            } else {
                fix = "use a certificate for this gateway's environment (apnskit inspect shows the certificate's)"
            }
            finish(.rejected, "The gateway rejected the certificate (403 BadCertificateEnvironment): it is for the other environment; \(fix).")
        case (403, .badCertificate):
            finish(.rejected, "The gateway rejected the certificate (403 BadCertificate): use the push certificate Apple issued for this app, with its key.")
        case (403, .invalidProviderToken):
            hint = .keyAndTeam
            finish(.rejected, "The gateway rejected the provider token (403 InvalidProviderToken): check the key id, the team id and that the .p8 file is that key's.")
        case (403, .expiredProviderToken):
            finish(.rejected, "The gateway rejected the provider token as expired (403 ExpiredProviderToken): check this machine's clock.")
        case (403, .missingProviderToken):
            hint = .credentials
            finish(.rejected, "The gateway wants a provider token or a client certificate (403 MissingProviderToken): give a certificate or an auth key.")
        case (403, _):
            finish(.rejected, "The gateway rejected the credentials (\(answer)).")
        case (400, _):
            finish(.accepted, "The gateway accepted \(credentials); it answered \(answer) about the probe itself.")
        default:
            finish(.failed, "The gateway answered \(answer), which says nothing about the credentials; is \(endpoint) an APNs provider API?")
        }
    }

    static func reason(in body: [UInt8]) -> String? {
        guard !body.isEmpty,
              let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object["reason"] as? String
    }

    enum CodingKeys: String, CodingKey {
        case endpoint, legacy, outcome, summary, steps, remoteAddress, tlsVersion, cipher, alpn, serverChain, chainVerified,
             verifyError, missingCA, hostnameMatches, clientCertificateRequested, clientCertificateAccepted, alert, probe, hint, revocation, proxy, proxyStatus
    }

    /// Every key is always present (null when unknown), so JSON consumers see one shape.
    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(endpoint, forKey: .endpoint)
        try c.encode(legacy, forKey: .legacy)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(summary, forKey: .summary)
        try c.encode(steps, forKey: .steps)
        try c.encode(remoteAddress, forKey: .remoteAddress)
        try c.encode(tlsVersion, forKey: .tlsVersion)
        try c.encode(cipher, forKey: .cipher)
        try c.encode(alpn, forKey: .alpn)
        try c.encode(serverChain, forKey: .serverChain)
        try c.encode(chainVerified, forKey: .chainVerified)
        try c.encode(verifyError, forKey: .verifyError)
        try c.encode(missingCA, forKey: .missingCA)
        try c.encode(hostnameMatches, forKey: .hostnameMatches)
        try c.encode(clientCertificateRequested, forKey: .clientCertificateRequested)
        try c.encode(clientCertificateAccepted, forKey: .clientCertificateAccepted)
        try c.encode(alert, forKey: .alert)
        try c.encode(probe, forKey: .probe)
        try c.encode(hint, forKey: .hint)
        try c.encode(revocation, forKey: .revocation)
        try c.encode(proxy, forKey: .proxy)
        try c.encode(proxyStatus, forKey: .proxyStatus)
    }
}
