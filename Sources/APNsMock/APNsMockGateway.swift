// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsSender
import APNsTransport
import Foundation
import Synchronized

/// A mock APNs gateway inside the test process: the provider API on a free loopback port,
/// judging requests as APNs does (the same handler as `apnskit mock serve`), with a CA made
/// in memory. Nothing is written to disk: the client trusts the CA through PEM text
/// (`APNsClient.Configuration.Trust.caPEM`), so a test needs no CA folder, no temporary file
/// and no clean-up beyond `shutdown()`, which `deinit` calls too.
///
/// ```swift
/// import APNs
/// import APNsMock
///
/// let gateway = try await APNsMockGateway.start()
/// let client = try APNsClient(configuration: gateway.configuration)   // token auth, trusted, bundle id set
/// _ = await client.send(APNsNotification(token: token, payload: payload))
/// await client.close()
/// #expect(gateway.sentNotifications.map(\.token) == [token])
/// gateway.shutdown()
/// ```
public final class APNsMockGateway: Sendable {
    /// A notification the gateway accepted (answered 200), as it arrived.
    public struct SentNotification: Sendable, Hashable {
        /// The token from the request's path.
        public let token: APNsDeviceToken
        /// The `apns-topic` header, or the certificate's bundle id when a certificate
        /// connection sent none (as APNs takes it).
        public let topic: String?
        /// The `apns-push-type` header; nil when the request had none.
        public let pushType: APNsPushType?
        /// The `apns-priority` header; nil when the request had none (APNs then reads 10).
        public let priority: APNsPriority?
        /// The `apns-collapse-id` header, if any.
        public let collapseID: String?
        /// The body as received, to decode in a test and compare with what your code meant to send.
        public let payload: [UInt8]
        /// The id the gateway answered with: the client's `apns-id`, or one it made.
        public let apnsID: UUID
        /// When the gateway accepted it: orders notifications across connections.
        public let receivedAt: Date
    }

    /// Why 10,000: a test asserts on a few; a soak test's long run keeps the newest 10,000
    /// (a few MB at most: payloads are at most 5 KB, most are under 200 bytes) and counts the rest.
    public static let defaultSentNotificationsLimit = 10_000

    /// Where the provider API listens: `127.0.0.1`.
    public let host: String
    /// The free port of `host` it listens on, chosen when it started; `configuration` already holds it.
    public let port: Int
    /// The APNs environment the gateway stands in for: it accepts certificates and answers
    /// (`apns-unique-id` in the sandbox) as that environment does.
    public let environment: APNsEnvironment
    /// The app the gateway's credentials are for: the token signer's configuration sends to
    /// it, and `certificateIdentity()` is issued for it.
    public let bundleID: String
    /// The mock CA's certificates (its intermediate, then its root), PEM: what a client must
    /// trust. Write it to a file for a child process (`APNS_CA_FILE`, `--ca-file`).
    public let caCertificatesPEM: String
    /// A provider token signer the gateway accepts (an ES256 key registered with it).
    public let tokenSigner: APNsTokenSigner
    /// The signer's private key as a `.p8` file holds it (PKCS#8 PEM), for a child process.
    public let authKeyPEM: String

    private let ca: MockCA
    private let gateway: MockGateway
    private let store: SentNotificationStore
    private let stopped = FirstCall()

    /// A client configuration for this gateway: the custom gateway (standing in for
    /// `environment`), the CA's trust as PEM text, token authentication with `tokenSigner`,
    /// and `bundleID`. Change what a test needs (`authentication = .certificate(...)`,
    /// `pool.concurrency`, ...).
    public var configuration: APNsClient.Configuration {
        var configuration = APNsClient.Configuration(gateway: .custom(host: host, port: port, environment: environment),
                                                     authentication: .token(tokenSigner))
        configuration.trust = .caPEM(caCertificatesPEM)
        configuration.bundleID = bundleID
        return configuration
    }

    /// Starts a gateway on a free port of 127.0.0.1 with a new CA (three RSA keys: a few
    /// hundred milliseconds). `answerDelay` holds every answer that long (sends stay in flight:
    /// for shutdown and cancellation tests; the gateway's own thread times it, so it holds
    /// even while the test's threads are blocked); `sentNotificationsLimit` bounds what
    /// `sentNotifications` keeps.
    public static func start(environment: APNsEnvironment = .sandbox, bundleID: String = "com.example.app",
                             answerDelay: Duration = .zero,
                             sentNotificationsLimit: Int = defaultSentNotificationsLimit) async throws(StartError) -> APNsMockGateway {
        do {
            return try APNsMockGateway(environment: environment, bundleID: bundleID, answerDelay: answerDelay,
                                       limit: sentNotificationsLimit)
        } catch let error as StartError {
            throw error
        } catch {
            throw StartError(description: "The mock gateway could not start: \(error)")
        }
    }

    /// Why the gateway could not start (a key could not be made, no loopback port could be bound).
    public struct StartError: Error, Sendable, CustomStringConvertible {
        /// Why the gateway could not start, in one sentence.
        public let description: String
    }

    private init(environment: APNsEnvironment, bundleID: String, answerDelay: Duration, limit: Int) throws {
        guard limit > 0 else { throw StartError(description: "sentNotificationsLimit must be at least 1; it was \(limit).") }
        guard answerDelay >= .zero else { throw StartError(description: "answerDelay must not be negative; it was \(answerDelay).") }
        ca = try MockCA.create()
        let authKey = try PrivateKey.generate(.ec256)
        let signer = try APNsTokenSigner(key: authKey, keyID: "MOCKKEY001", teamID: "MOCKTEAM01")
        store = SentNotificationStore(limit: limit)
        var configuration = MockGateway.Configuration()
        (configuration.legacyPort, configuration.feedbackPort, configuration.channelsPort) = (nil, nil, nil)
        configuration.api.environment = environment
        configuration.api.authKeys.add(.init(keyID: signer.keyID, teamID: signer.teamID, publicKey: try PublicKey(of: authKey)))
        configuration.api.faults.delayMilliseconds = Int(answerDelay / .milliseconds(1))
        configuration.api.inbox = store
        let pem = try ca.intermediate.pem() + ca.root.pem()
        gateway = try MockGateway(ca: ca, clientTrust: .certificates(pem: pem), configuration: configuration)
        host = configuration.host
        port = gateway.providerPort
        self.environment = environment
        self.bundleID = bundleID
        caCertificatesPEM = String(decoding: pem, as: UTF8.self)
        tokenSigner = signer
        authKeyPEM = String(decoding: try authKey.pkcs8PEM(), as: UTF8.self)
    }

    deinit { shutdown() }

    /// A certificate identity the gateway accepts, as the developer portal would issue it for
    /// `bundleID` (a universal certificate: sandbox and production), with a new RSA key. For
    /// `configuration.authentication = .certificate(...)`.
    public func certificateIdentity() throws -> APNsIdentity {
        let key = try PrivateKey.generate(.rsa2048)
        let certificate = try ca.issue(forKey: key, PortalRequest(bundleID: bundleID, type: .universal))
        return try APNsIdentity(certificate: certificate, privateKey: key, chain: [ca.intermediate])
    }

    /// The notifications the gateway accepted, oldest first: the newest
    /// `sentNotificationsLimit` of them (see `sentNotificationCount`). A notification is here
    /// from the moment the gateway decided to accept it, before its answer (held by
    /// `answerDelay`) goes out.
    public var sentNotifications: [SentNotification] { store.notifications }

    /// Every notification accepted since start, also those `sentNotifications` no longer keeps.
    public var sentNotificationCount: Int { store.total }

    /// Stops listening and closes every connection (clients see GOAWAY). Safe to call twice.
    public func shutdown() {
        guard stopped.claim() else { return }
        gateway.stop()
    }
}

/// The inbox sink behind `sentNotifications`: called on the gateway's event loop for every
/// answered request, keeps the accepted provider API notifications, the newest `limit` of them.
private final class SentNotificationStore: InboxSink, Sendable {
    private let limit: Int
    private struct State {
        var ring: [APNsMockGateway.SentNotification] = []
        var next = 0
        var count = 0
    }

    private let state = Locked(State())

    init(limit: Int) { self.limit = limit }

    func gatewayAnswered(_ event: InboxEvent) {
        // Accepted requests passed the gateway's checks: the token and apns-id parse.
        guard event.protocolName == "h2", event.accepted,
              let token = event.deviceToken.flatMap({ try? APNsDeviceToken(parsing: $0) }),
              let apnsID = event.apnsID.flatMap(UUID.init(uuidString:)) else { return }
        let notification = APNsMockGateway.SentNotification(
            token: token, topic: event.topic, pushType: event.pushType.flatMap(APNsPushType.init(rawValue:)),
            priority: event.priority.flatMap(Int.init).flatMap(APNsPriority.init(rawValue:)), collapseID: event.collapseID,
            payload: event.payload, apnsID: apnsID, receivedAt: event.time)
        state.withLock { state in
            if state.ring.count < limit { state.ring.append(notification) } else { state.ring[state.next] = notification }
            state.next = (state.next + 1) % limit
            state.count += 1
        }
    }

    var notifications: [APNsMockGateway.SentNotification] {
        state.withLock { state in
            state.ring.count < limit ? state.ring : Array(state.ring[state.next...] + state.ring[..<state.next])
        }
    }

    var total: Int { state.withLock { $0.count } }
}

/// True for the first `claim()` only: makes `shutdown()` safe to call twice, from any thread.
private final class FirstCall: Sendable {
    private let claimed = Locked(false)

    func claim() -> Bool { claimed.withLock { claimed in defer { claimed = true }; return !claimed } }
}
