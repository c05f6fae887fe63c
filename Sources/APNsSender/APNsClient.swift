// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation
import Logging
import Metrics

/// Sends notifications through Apple's HTTP/2 provider API, for as long as the program runs:
/// connections are pooled, reconnected after outages and health-checked; retryable answers are
/// retried with back-off; every notification ends with exactly one `APNsSendResult`, whose
/// word is a promise (`.cancelled(written: false)` means APNs never saw it).
///
/// ```swift
/// import APNs
///
/// let identity = try APNsIdentity.load(contentsOf: ["apns.pem"])
/// let client = try APNsClient(configuration: .init(gateway: .sandbox, authentication: .certificate(identity)))
/// let result = await client.send(try APNsNotification(token: token, alert: APNsAlert(title: "Hello")))
/// await client.close()
/// ```
///
/// Share one client per app and environment across tasks: `send` is safe from any number of
/// tasks at once, and waits for a slot of the `concurrency` window before writing.
public final class APNsClient: Sendable {
    /// How the client authenticates to APNs: one of the two trust models Apple offers
    /// (apns-protocol.md §1, §2). A token key serves every app of the team; a certificate one app.
    public enum Authentication: Sendable {
        /// Certificate-based trust: the identity is presented in the TLS handshake.
        case certificate(APNsIdentity)
        /// Token-based trust: every request carries a cached, periodically renewed JWT.
        case token(APNsTokenSigner)
    }

    /// The app's bundle id notifications without a topic are sent to (with their push type's
    /// suffix): `Configuration.bundleID`, else the certificate's.
    public let bundleID: String?
    package let endpoint: Endpoint
    let sender: BatchSender
    /// `Configuration.tokenDiagnosis`: the other environment's client, nil when off.
    private let diagnoser: TokenDiagnoser?

    /// A client for `configuration`. `logger` gets the sender's logs (nothing is logged when
    /// nil: a library is quiet by default); `metricsFactory` its metrics (the bootstrapped
    /// `MetricsSystem.factory` when nil), labelled with the gateway's environment. Throws
    /// `invalidConfiguration` for a configuration it cannot use (`Configuration.problem()`:
    /// token authentication without a bundle id, a port or pool size out of range, a timeout
    /// that is not positive), so a mistake fails here rather than on every send. Opens nothing
    /// yet: the first send connects.
    public convenience init(configuration: Configuration, logger: Logger? = nil, metricsFactory: MetricsFactory? = nil) throws(APNsSendError) {
        if let problem = configuration.problem() { throw problem }
        self.init(endpoint: configuration.gateway.providerEndpoint(proxy: configuration.proxy), trust: configuration.transportTrust,
                  authentication: configuration.authentication, bundleID: configuration.bundleID,
                  connections: configuration.pool.connections, eventLoops: configuration.pool.eventLoops, concurrency: configuration.pool.concurrency,
                  policy: configuration.retry, connectTimeout: configuration.timeouts.connect.seconds,
                  requestTimeout: configuration.timeouts.request.seconds, healthCheck: configuration.transportHealthCheck, logger: logger,
                  environment: configuration.environment, metricsFactory: metricsFactory,
                  tokenDiagnosis: configuration.diagnosisTarget)
    }

    /// Everything, in the transport's terms (the CLI and tests). `eventLoops` spreads the
    /// connections over that many loops (threads), at most one per core; the default keeps
    /// them on one loop, which measured cheaper per notification (docs/benchmarks.md).
    package init(endpoint: Endpoint, trust: TLSConfiguration.Trust, authentication: Authentication, bundleID: String? = nil,
                 connections: Int = 1, eventLoops: Int = 1, concurrency: Int = 100, policy: APNsRetryPolicy = APNsRetryPolicy(),
                 connectTimeout: Double = 10, requestTimeout: Double = 30, healthCheck: HTTP2HealthCheck = HTTP2HealthCheck(),
                 logger: Logger? = nil, environment: APNsEnvironment? = nil, metricsFactory: MetricsFactory? = nil,
                 tokenDiagnosis: TokenDiagnoser.Target? = nil) {
        self.endpoint = endpoint
        switch authentication {
        case .certificate(let identity): self.bundleID = bundleID ?? identity.bundleID
        case .token: self.bundleID = bundleID
        }
        let connector = HTTP2ProviderConnector(endpoint: endpoint, trust: trust, authentication: authentication, connectTimeout: connectTimeout,
                                               requestTimeout: requestTimeout, healthCheck: healthCheck, eventLoops: eventLoops)
        // The other environment's client: the same credentials, trust and timeouts, one
        // connection (a diagnosis is rare), opened only when a token is first tried, and one
        // attempt per token: a request lost after it was written may have been delivered there.
        let defaultBundleID = self.bundleID
        diagnoser = tokenDiagnosis.map { target in
            TokenDiagnoser(client: target.endpoint.map {
                APNsClient(endpoint: $0, trust: trust, authentication: authentication, bundleID: defaultBundleID, connections: 1, eventLoops: eventLoops,
                           concurrency: concurrency, policy: policy.singleAttempt, connectTimeout: connectTimeout,
                           requestTimeout: requestTimeout, healthCheck: healthCheck, logger: logger, environment: target.environment, metricsFactory: metricsFactory)
            }, environment: target.environment, limit: target.limit)
        }
        sender = BatchSender(connector: connector, connections: connections, concurrency: concurrency, policy: policy, tokens: authentication.tokenCache(),
                             logger: logger, environment: environment?.rawValue ?? "custom", metricsFactory: metricsFactory,
                             defaultBundleID: self.bundleID, diagnoser: diagnoser)
    }

    /// Sends one notification once a slot of the `concurrency` window is free; never throws:
    /// every outcome is in the result. Cancelling the calling task ends it at once:
    /// `.cancelled(written: false)` if it was still waiting (it is then never sent),
    /// `.cancelled(written: true)` if its request had gone out. After `close()`, fails at once
    /// with `APNsSendError.Code.clientClosed`.
    public func send(_ notification: APNsNotification) async -> APNsSendResult {
        await sender.send(notification)
    }

    /// Sends everything `feed` yields, calling `onResult` exactly once per notification, on a
    /// thread of the batch's own (not the event loop's), one call at a time. Cancelling the
    /// calling task stops the batch (`BatchSender.send(_:onResult:)`).
    public func send(feed: some APNsNotificationFeed, onResult: @escaping @Sendable (APNsSendResult) -> Void) async -> APNsBatchSummary {
        await sender.send(feed, onResult: onResult)
    }

    /// Closes the client for good: sends after this fail at once (`clientClosed`) and no
    /// connection is opened again. What waits for a slot ends `.cancelled(written: false)`;
    /// what is in flight gets its answer, or with `cancellingInFlight` is given up at once.
    /// Returns when every result is out, every connection is gone and no connect, timer or task
    /// of the client runs any more: a process may exit right after it. Safe to call twice.
    /// With token diagnosis, the other environment's client closes too: after the batches (their
    /// diagnoses are part of their results), or at once beside them with `cancellingInFlight`.
    public func close(cancellingInFlight: Bool = false) async {
        await close(cancellingInFlight: cancellingInFlight, byServiceGroup: false)
    }

    /// `close(cancellingInFlight:)`; `byServiceGroup` when a `ServiceGroup`'s shutdown closes
    /// the client (`run()`): a send after it then logs a warning about the group's order.
    package func close(cancellingInFlight: Bool, byServiceGroup: Bool) async {
        guard let diagnoser else { return await sender.close(cancellingInFlight: cancellingInFlight, byServiceGroup: byServiceGroup) }
        if cancellingInFlight {
            async let other: Void = diagnoser.close(cancellingInFlight: true)
            await sender.close(cancellingInFlight: true, byServiceGroup: byServiceGroup)
            await other
        } else {
            await sender.close(byServiceGroup: byServiceGroup)
            await diagnoser.close(cancellingInFlight: false)
        }
    }
}
