// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Foundation

/// `ProviderConnection` over a real `HTTP2Client`: the bridge between the transport's error
/// kinds and the sender's three questions (was it processed? is the connection gone? could we
/// connect at all?), which decide whether a resend may deliver twice.
package final class HTTP2ProviderConnection: ProviderConnection {
    package let client: HTTP2Client
    /// Seconds a request may wait for its response before it counts as lost: a gateway that
    /// goes silent must not hang a batch.
    package let requestTimeout: Double

    package init(client: HTTP2Client, requestTimeout: Double = 30) {
        self.client = client
        self.requestTimeout = requestTimeout
    }

    package func send(_ request: HTTP2Request) async throws(ProviderSendError) -> HTTP2Response {
        let result = await withCheckedContinuation { continuation in
            submit(request) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    package func submit(_ request: HTTP2Request, completion: @escaping @Sendable (Result<HTTP2Response, ProviderSendError>) -> Void) {
        client.submit(request, timeout: requestTimeout, to: ProviderClosureReceiver(completion))
    }

    /// The receiver goes to the stream as it is: its `received(_:)` maps the transport's error.
    package func submit(_ request: HTTP2Request, cancellation: RequestCancellation, to receiver: any ProviderResponseReceiver) {
        client.submit(request, timeout: requestTimeout, cancellation: cancellation, to: receiver)
    }

    package var isUsable: Bool { client.isOpen }
    package var maxConcurrentStreams: Int { client.peerMaxConcurrentStreams }
    package func close() { client.close() }
    package func closeAndWait() async { await client.closeAndWait() }

    /// A failed request: not processed (safe to resend) or lost in flight (a resend may
    /// duplicate).
    static func map(_ error: TransportError) -> ProviderSendError {
        switch error.kind {
        // REFUSED_STREAM arrives as `.notProcessed` (the state machine maps it), never as a reset.
        case .notProcessed:
            return .notProcessed(error.message)
        default:
            return .connectionLost(error.message)
        }
    }
}

/// Opens `HTTP2ProviderConnection`s to one endpoint. A connection counts only once the server's
/// SETTINGS arrived: with TLS 1.3 a refused client certificate shows up just then, as an alert.
package struct HTTP2ProviderConnector: ProviderConnector {
    package let endpoint: Endpoint
    package let tls: TLSConfiguration
    package let connectTimeout: Double
    package let requestTimeout: Double
    /// Pings connections that have been idle, so a dead one is replaced before a send needs it.
    package let healthCheck: HTTP2HealthCheck
    /// The loops connections live on: pool slot `n` connects on `loops[n % loops.count]`, so
    /// several connections can use several cores (`EventLoop.sharedLoops(count:)`).
    package let loops: [EventLoop]
    package var loop: EventLoop { loops[0] }
    package var loopCount: Int { loops.count }

    package init(endpoint: Endpoint, tls: TLSConfiguration, connectTimeout: Double = 10, requestTimeout: Double = 30,
                healthCheck: HTTP2HealthCheck = HTTP2HealthCheck(), loop: EventLoop = .shared) {
        self.init(endpoint: endpoint, tls: tls, connectTimeout: connectTimeout, requestTimeout: requestTimeout,
                  healthCheck: healthCheck, loops: [loop])
    }

    /// `loops` must not be empty.
    package init(endpoint: Endpoint, tls: TLSConfiguration, connectTimeout: Double = 10, requestTimeout: Double = 30,
                healthCheck: HTTP2HealthCheck = HTTP2HealthCheck(), loops: [EventLoop]) {
        precondition(!loops.isEmpty, "HTTP2ProviderConnector needs at least one event loop.")
        self.endpoint = endpoint
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.healthCheck = healthCheck
        self.loops = loops
    }

    package func connect() async throws(ProviderSendError) -> any ProviderConnection {
        try await connect(slot: 0)
    }

    package func connect(slot: Int) async throws(ProviderSendError) -> any ProviderConnection {
        let loop = loops[slot % loops.count]
        do {
            let client = try await HTTP2Client.connect(to: endpoint, tls: tls, settings: .apnsClient(),
                                                       timeout: connectTimeout, healthCheck: healthCheck, loop: loop)
            do {
                // A cancel (the pool closing) ends the wait: the connection closes, which
                // fails the wait for its SETTINGS.
                try await withTaskCancellationHandler { try await client.ready(timeout: connectTimeout) } onCancel: { client.close() }
            } catch {
                // Gone before this returns: nothing of a failed attempt outlives it.
                await client.closeAndWait()
                throw error
            }
            return HTTP2ProviderConnection(client: client, requestTimeout: requestTimeout)
        } catch {
            // The classification `verify` uses: the same failure, the same sentence and verdict.
            let failure = ConnectionFailure(error, endpoint: endpoint.description, presentedCertificate: tls.identity != nil)
            switch failure.verdict {
            case .credentialsRejected: throw .credentialsRejected(failure.sentence)
            case .unreachable: throw .cannotConnect(failure.sentence)
            }
        }
    }
}
