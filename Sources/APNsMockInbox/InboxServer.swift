// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsProtocol
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The inbox's web server (Hummingbird, HTTP/1.1, on NIO's event loops, apart from the
/// gateway's own loop): the page at `/`, `GET`/`DELETE /api/notifications`, and the live feed
/// `GET /api/events` (server-sent events).
package final class InboxServer: Sendable {
    private let service: HTTPService
    private let ticker: Task<Void, Never>
    private let store: InboxStore

    /// Connections open at once (page loads, API calls, live feeds). One more takes the slot
    /// of a connection still waiting for its request after a second (`ConnectionSlots`), else
    /// it is closed at once.
    package static let maxConnections = 128
    /// Of those, at most this many from one address, with the same rule. Above
    /// `InboxStore.maxSubscribers` (32 live feeds) so a browser's tabs get their 503 from the
    /// store, with a reason, not a closed connection.
    package static let maxConnectionsPerPeer = 48
    /// A request's head and body must be in within this many seconds of the connection being
    /// ready for it (opened, or its last answer sent), else the connection is closed: this ends
    /// one that never finishes its request (a body sent a byte at a time), and a kept-alive
    /// one gone quiet. Live feeds and long polls have their request in, so they stay.
    package static let requestDeadlineSeconds: Int64 = 10
    /// Hummingbird's own limit, above ours so that a connection past ours reaches
    /// `ConnectionSlots` (which may make room for it) instead of waiting in the backlog.
    static let acceptLimit = maxConnections + 32
    /// How long `stop` waits for requests in progress before it returns anyway: a request
    /// never holds up the mock's exit on SIGINT/SIGTERM.
    static let stopGraceSeconds: UInt64 = 2
    /// A comment line on every live feed this often, so a feed whose reader has gone is noticed
    /// (its write fails) and its subscriber slot freed even when the gateway is quiet.
    static let heartbeatSeconds: UInt64 = 10

    package typealias StartError = HTTPService.StartError

    /// Binds and starts serving; returns once the port is known, or throws `StartError`.
    /// With `token`, every request must carry it (`InboxAccessPolicy`): for an inbox bound beyond
    /// loopback.
    /// With `faults`, `GET`/`PUT /api/faults` show and replace that gateway's run-time faults;
    /// with `webhook`, `GET /api/stats` shows its counts.
    package static func start(store: InboxStore, host: String, port: Int, token: String? = nil, faults: ProviderAPIHandler? = nil,
                              webhook: WebhookDelivery? = nil) async throws -> InboxServer {
        let router = Router(context: InboxRequestContext.self)
        router.add(middleware: InboxAccessPolicy(boundHost: host, token: token))
        InboxRoutes(store: store, faults: faults, webhook: webhook).add(to: router)
        let slots = ConnectionSlots(total: maxConnections, perPeer: maxConnectionsPerPeer, requestSeconds: requestDeadlineSeconds)
        let http = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: [ConnectionSlotHandler(slots: slots)],
                                                                idleTimeout: .seconds(requestDeadlineSeconds)))
        let service = try await HTTPService.start(router: router, server: http, host: host, port: port, name: "apnskit-mock-inbox",
                                                  maxConnections: acceptLimit)
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: heartbeatSeconds * 1_000_000_000)
                store.heartbeat()
            }
        }
        return InboxServer(service: service, ticker: ticker, store: store)
    }

    private init(service: HTTPService, ticker: Task<Void, Never>, store: InboxStore) {
        self.service = service
        self.ticker = ticker
        self.store = store
    }

    /// The port bound (the one asked for, or the one picked for 0).
    package var port: Int { service.port }

    /// Ends the live feeds and any search in progress (the store is closed), stops listening
    /// and waits for the server to finish, at most `stopGraceSeconds`.
    package func stop() async {
        ticker.cancel()
        store.close()
        await service.stop(graceSeconds: Self.stopGraceSeconds)
    }
}
