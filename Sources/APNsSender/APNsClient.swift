import APNsCredentials
import APNsProtocol
import APNsTransport
import Foundation
import Logging

/// The library path "load identity -> verify -> hand to sender" in one value: where to send
/// (Apple's sandbox or production host, or any endpoint such as a mock), how to authenticate
/// (the certificate in the TLS handshake, or ES256 provider tokens), and a `BatchSender`
/// doing pooling, retries and exactly-one-result accounting.
///
/// ```swift
/// let identity = try IdentityLoader.load(["apns.pem"], passphrases: .none)
/// let client = APNsClient(environment: .sandbox, authentication: .certificate(identity))
/// let result = await client.send(APNsNotification(token: token, payload: payload.json(),
///                                                 topic: client.defaultTopic))
/// ```
public final class APNsClient: Sendable {
    /// The one environment type of the package (the certificate checks use it too).
    public typealias Environment = APNsEnvironment

    public enum Authentication: Sendable {
        /// Certificate-based trust: the identity is presented in the TLS handshake.
        case certificate(APNsIdentity)
        /// Token-based trust: every request carries a cached, periodically renewed JWT.
        case token(APNsTokenSigner)
    }

    public let endpoint: Endpoint
    /// The certificate's bundle id (subject UID) with certificate auth; nil with token auth,
    /// where the topic must be given.
    public let defaultTopic: String?
    private let sender: BatchSender

    /// Apple's provider API for `environment`; `port` is 443 or 2197.
    public convenience init(environment: Environment, port: Int = 443, authentication: Authentication,
                            connections: Int = 1, concurrency: Int = 100, policy: APNsRetryPolicy = APNsRetryPolicy(), logger: Logger? = nil) {
        self.init(endpoint: Endpoint(host: environment.host, port: port), trust: .system, authentication: authentication,
                  connections: connections, concurrency: concurrency, policy: policy, logger: logger, environment: environment)
    }

    /// Any endpoint (a mock gateway, a proxy); `caFile` anchors trust instead of the system store.
    public convenience init(endpoint: Endpoint, caFile: String?, authentication: Authentication,
                            connections: Int = 1, concurrency: Int = 100, policy: APNsRetryPolicy = APNsRetryPolicy(), logger: Logger? = nil) {
        self.init(endpoint: endpoint, trust: caFile.map { .caFile($0) } ?? .system, authentication: authentication,
                  connections: connections, concurrency: concurrency, policy: policy, logger: logger)
    }

    /// Everything configurable. `logger` gets the sender's logs (nothing is logged when nil);
    /// `environment` labels the metrics (`custom` when nil: a mock, a proxy). `healthCheck`
    /// pings idle connections so a dead one is replaced before a send needs it. `eventLoops`
    /// spreads the connections over that many loops (threads), at most one per core
    /// (`EventLoop.sharedLoops`); the default keeps them on one loop, which measured cheaper
    /// per notification (README, Benchmarks: the loops share one batch state and its lock).
    public init(endpoint: Endpoint, trust: TLSConfiguration.Trust, authentication: Authentication,
                connections: Int = 1, eventLoops: Int = 1, concurrency: Int = 100, policy: APNsRetryPolicy = APNsRetryPolicy(),
                connectTimeout: Double = 10, requestTimeout: Double = 30, healthCheck: HTTP2HealthCheck = HTTP2HealthCheck(),
                logger: Logger? = nil, environment: Environment? = nil) {
        self.endpoint = endpoint
        var identity: APNsIdentity?
        var tokens: ProviderTokenCache?
        switch authentication {
        case .certificate(let certificateIdentity):
            identity = certificateIdentity
            defaultTopic = certificateIdentity.certificate.subject.first("UID")
        case .token(let signer):
            tokens = ProviderTokenCache(signer: signer)
            defaultTopic = nil
        }
        // Connection n on loop n mod eventLoops (at most one loop per core).
        let connector = HTTP2ProviderConnector(endpoint: endpoint, tls: .client(identity: identity, trust: trust),
                                               connectTimeout: connectTimeout, requestTimeout: requestTimeout, healthCheck: healthCheck,
                                               loops: EventLoop.sharedLoops(count: eventLoops))
        sender = BatchSender(connector: connector, connections: connections, concurrency: concurrency, policy: policy, tokens: tokens,
                             logger: logger, environment: environment?.rawValue ?? "custom", defaultBundleID: defaultTopic)
    }

    /// Sends one notification; never throws: every failure is in the result.
    public func send(_ notification: APNsNotification) async -> APNsSendResult {
        await sender.send(notification)
    }

    /// Sends everything `feed` yields, calling `onResult` exactly once per notification, on a
    /// thread of the batch's own (not the event loop's), one call at a time.
    public func send(feed: some APNsNotificationFeed, onResult: @escaping @Sendable (APNsSendResult) -> Void) async -> APNsBatchSummary {
        await sender.send(feed, onResult: onResult)
    }

    /// Closes the client for good (`BatchSender.close`): later sends fail at once with
    /// `APNsSendError.Code.clientClosed`; returns when every connection is gone.
    public func close(cancellingInFlight: Bool = false) async { await sender.close(cancellingInFlight: cancellingInFlight) }
}
