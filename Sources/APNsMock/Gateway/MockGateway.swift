// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation
import Synchronized

/// The local APNs gateway: the HTTP/2 provider API, the legacy binary gateway and the
/// feedback service, all on TLS with the mock CA's server certificate, verifying client
/// certificates against the mock CA. Start it from code on port 0 and read the ports back, or
/// with `apnskit mock serve`.
package final class MockGateway: Sendable {
    package struct Configuration: Sendable {
        package var host = "127.0.0.1"
        /// 0 picks a free port.
        package var port = 0
        package var legacyPort: Int? = 0
        package var feedbackPort: Int? = 0
        /// The channel management API (apns-protocol.md §8; nil: not served).
        package var channelsPort: Int? = 0
        package var api = ProviderAPIHandler.Settings()
        package var recordPath: String?
        /// Connections open at once over all three ports (`--max-connections`); one more is
        /// closed at once, with a log line. See `defaultMaxConnections`.
        package var maxConnections = MockGateway.defaultMaxConnections
        /// Of those, at most this many from one address (`--max-connections-per-peer`), so
        /// one client cannot take every slot. See `defaultMaxConnectionsPerPeer`.
        package var maxConnectionsPerPeer = MockGateway.defaultMaxConnectionsPerPeer
        /// Appended to the log line about a refused connection: how the caller raises the
        /// limit (the CLI names its flag; a library user, their own setting).
        package var connectionLimitHint = ""
        /// The same for a connection refused at `maxConnectionsPerPeer`.
        package var connectionsPerPeerHint = ""
        package init() {}
    }

    /// Why 100: `apnskit push` opens at most 64 connections and a provider a handful; a
    /// tenth of the default total leaves nine tenths for everyone else.
    package static let defaultMaxConnectionsPerPeer = 100

    /// The largest request body the provider API keeps: the largest payload APNs accepts
    /// (5 KB for VoIP, apns-protocol.md §2). A request past it is answered 413
    /// PayloadTooLarge at once, before its END_STREAM, and the rest of it is discarded.
    package static let maxRequestBody = 5120

    /// Why 1000: a provider keeps a handful of connections (APNs treats rapid reconnects as an
    /// attack), so a thousand covers any realistic test fleet; each costs the mock about
    /// 115 KB (TLS, nghttp2, a 64 KB read buffer; 1,000 took it from 30 to 144 MB), so the cap
    /// also bounds its memory however many clients connect, and it fits the usual
    /// `ulimit -n` of 1024.
    package static let defaultMaxConnections = 1000

    package let providerPort: Int
    /// Shared by the three ports.
    package let connectionLimit: ConnectionLimit
    package let legacyPort: Int?
    package let feedbackPort: Int?
    package let channelsPort: Int?
    package let handler: ProviderAPIHandler
    package let recorder: NotificationRecorder?
    private let servers: (HTTP2Server, TLSServer?, TLSServer?)
    private let channelsServer: HTTP2Server?
    private let feedbackQueue: FeedbackQueue
    private let idleSweeper: Task<Void, Never>?

    /// Starts everything; throws a `TransportError` (port in use) or `APNsCredentialError`.
    /// `log` gets the per-connection lines; `warn` (default: `log`) the ones about the gateway
    /// itself: connections refused at the limit, accept() out of file descriptors, clients
    /// closed for breaking HTTP/2 limits.
    package convenience init(ca: MockCA, caFolder: String, configuration: Configuration, log: @escaping @Sendable (String) -> Void = { _ in },
                warn: (@Sendable (String) -> Void)? = nil) throws {
        var configuration = configuration
        if configuration.api.authKeys.entries.isEmpty { configuration.api.authKeys = try AuthKeyRegistry.load(caFolder: caFolder) }
        try self.init(ca: ca, clientTrust: .caFile("\(caFolder)/\(MockCALayout.bundle)"), configuration: configuration, log: log, warn: warn)
    }

    /// The same without a CA folder: client certificates are checked against `clientTrust`
    /// (the CA's certificates in memory, for `APNsMockGateway`) and provider tokens against
    /// `configuration.api.authKeys` only.
    package init(ca: MockCA, clientTrust: TLSConfiguration.Trust, configuration: Configuration, log: @escaping @Sendable (String) -> Void = { _ in },
                 warn: (@Sendable (String) -> Void)? = nil) throws {
        let warn = warn ?? log
        let limit = ConnectionLimit(maximum: configuration.maxConnections, perPeer: configuration.maxConnectionsPerPeer,
                                    hint: configuration.connectionLimitHint, perPeerHint: configuration.connectionsPerPeerHint, log: warn)
        connectionLimit = limit
        let settings = configuration.api
        recorder = try configuration.recordPath.map { try NotificationRecorder(path: $0) }
        handler = ProviderAPIHandler(settings: settings, recorder: recorder, log: log)
        let identity = try APNsIdentity(certificate: ca.server, privateKey: ca.serverKey, chain: [],
                                    certificateLabel: "the mock CA's server.pem", keyLabel: "server-key.pem")
        var tls = TLSConfiguration.server(identity: identity, clientTrust: clientTrust)
        tls.requireClientCertificate = false
        tls.requestClientCertificate = true
        let handler = self.handler
        var http2Settings = HTTP2Settings(maxConcurrentStreams: settings.faults.maxConcurrentStreams, maxBodySize: Self.maxRequestBody)
        http2Settings.applyAPNsServerRules()
        let idleTimeout = settings.faults.idleTimeoutSeconds
        if idleTimeout > 0 {
            http2Settings.idleTimeout = idleTimeout
            http2Settings.idleGoAwayDebug = #"{"reason":"IdleTimeout"}"#
        }
        http2Settings.maxConcurrentStreamsWithoutClientCertificate = min(settings.tokenConnectionInitialStreams, settings.faults.maxConcurrentStreams)
        // Every connection that ends is logged with its reason and counted (`GET /api/stats`);
        // one broken by the client (a flood, an HTTP/2 error) is also a warning.
        let closes = handler.closedConnections
        closes.countRefusals(of: limit)
        let closed: @Sendable (String) -> @Sendable (ClosedConnection) -> Void = { port in
            { connection in
                closes.count(connection)
                let line = "\(port)\(connection.logLine)"
                if connection.reason == "protocol-error" || connection.reason.hasSuffix("ENHANCE_YOUR_CALM") { warn(line) } else { log(line) }
            }
        }
        let http2 = try HTTP2Server.start(host: configuration.host, port: configuration.port, tls: tls, settings: http2Settings,
                                          limit: limit, log: warn, closed: closed(""), loopHandler: { handler.handle($0) })
        let channels = try configuration.channelsPort.map { port in
            try HTTP2Server.start(host: configuration.host, port: port, tls: tls, settings: http2Settings, limit: limit, log: warn,
                                  closed: closed("channel management "), loopHandler: { handler.handle($0, management: true) })
        }
        channelsServer = channels
        channelsPort = channels?.port
        let required = TLSConfiguration.server(identity: identity, clientTrust: clientTrust)
        let recorder = self.recorder
        let registry = settings.registry
        let environment = settings.environment
        let inbox = settings.inbox
        let counter = ConnectionCounter()
        let legacy = try configuration.legacyPort.map { port in
            try TLSServer.start(host: configuration.host, port: port, tls: required, limit: limit, log: warn) { connection in
                await LegacyGatewaySession(id: counter.next(), environment: environment, registry: registry, recorder: recorder,
                                           inbox: inbox, log: log, idleSeconds: idleTimeout > 0 ? idleTimeout : .infinity)
                    .serve(connection)
            }
        }
        let queue = FeedbackQueue(initial: registry?.feedback(for: environment) ?? [], handler: handler)
        feedbackQueue = queue
        let feedback = try configuration.feedbackPort.map { port in
            try TLSServer.start(host: configuration.host, port: port, tls: required, limit: limit, log: warn) { connection in
                await FeedbackSession(id: counter.next(), queue: queue, inbox: inbox, log: log).serve(connection)
            }
        }
        servers = (http2, legacy, feedback)
        providerPort = http2.port
        if idleTimeout > 0 {
            // The transport sends the GOAWAY (to every idle connection, including those that
            // never sent a request); this only logs it and forgets the connection's state.
            idleSweeper = Task { [handler] in
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: UInt64(min(idleTimeout, 1) / 2 * 1_000_000_000))
                    for id in handler.takeIdleConnections(olderThan: idleTimeout) {
                        log("connection #\(id): idle for \(idleTimeout)s; GOAWAY IdleTimeout")
                    }
                }
            }
        } else {
            idleSweeper = nil
        }
        legacyPort = legacy?.port
        feedbackPort = feedback?.port
    }

    /// Stops accepting, sends GOAWAY, and flushes the record.
    package func stop() {
        idleSweeper?.cancel()
        servers.0.stop()
        servers.1?.stop()
        servers.2?.stop()
        channelsServer?.stop()
        recorder?.close()
    }
}

/// The feedback list: registry entries at start plus tokens answered 410 since; cleared once read.
final class FeedbackQueue: Sendable {
    private let pending: Locked<[FeedbackTuple]>
    private let handler: ProviderAPIHandler

    init(initial: [FeedbackTuple], handler: ProviderAPIHandler) {
        pending = Locked(initial)
        self.handler = handler
    }

    func take() -> [FeedbackTuple] {
        let fresh = handler.takeUnregistered()
        return pending.withLock { pending in
            var all = pending
            for tuple in fresh where !all.contains(tuple) { all.append(tuple) }
            pending.removeAll()
            return all
        }
    }
}

/// Numbers the legacy and feedback connections for log lines.
final class ConnectionCounter: Sendable {
    private let value = Locked(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}
