// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
@testable import APNsSender
import APNsTransport
import Foundation
import TestSupport
import Testing

/// `--connections N` spreads connections over event loops (threads): pool slot n connects on
/// loop n mod loops, and `EventLoop.sharedLoops` gives at most one loop per core.
@Suite("Sender: connections over event loops")
struct ConnectionLoopsTests {
    @Test func sharedLoopsStartWithTheSharedLoopAndStopAtTheCoreCount() {
        let loops = EventLoop.sharedLoops(count: 64)
        #expect(loops.count == min(64, EventLoop.coreLimit))
        #expect(loops.first === EventLoop.shared)
        #expect(Set(loops.map(ObjectIdentifier.init)).count == loops.count)
        // The same loops every time: a second sender does not start more threads.
        #expect(zip(loops, EventLoop.sharedLoops(count: 64)).allSatisfy { $0 === $1 })
        #expect(EventLoop.sharedLoops(count: 0).count == 1)
    }

    @Test func batchOverTwoConnectionsUsesBothLoops() async throws {
        let loops = [EventLoop(name: "test.loop.a"), EventLoop(name: "test.loop.b")]
        defer { loops.forEach { $0.shutdown() } }
        try await sendBatch(loops: loops)
        // Closed and released: every connection (socket, SSL*, nghttp2 session) on both loops is freed.
        _ = await Wait.until(seconds: 30) { loops.allSatisfy { $0.liveConnectionCount == 0 } }
        #expect(loops.map(\.liveConnectionCount) == [0, 0])
    }

    /// A finished batch keeps nothing alive: its feed reader's callback once held the run (and
    /// so its connections, sockets and SSL objects) for the life of the process, one per batch.
    @Test func closedSenderFreesItsConnectionAfterABatch() async throws {
        let loop = EventLoop(name: "test.loop.single")
        defer { loop.shutdown() }
        try await sendBatch(loops: [loop], connections: 1)
        #expect(await Wait.until(seconds: 30) { loop.liveConnectionCount == 0 }, "\(loop.liveConnectionCount) connections left")
    }

    /// A function of its own so the server, the sender and its connections are released when it
    /// returns.
    private func sendBatch(loops: [EventLoop], connections: Int = 2) async throws {
        let material = try HTTP2ProviderConnectionTests.Material()
        let server = try material.server { request in HTTP2Response(status: 200, headers: [("apns-id", request.header("apns-id") ?? "")]) }
        defer { server.stop() }
        let connector = HTTP2ProviderConnector(endpoint: Endpoint(host: "127.0.0.1", port: server.port),
                                               tls: .client(identity: nil, trust: .caFile(material.serverCert)), loops: loops)
        let sender = BatchSender(connector: connector, connections: connections, concurrency: 10, tokens: ProviderTokenCache(signer: try material.signer()))
        let results = ResultCollector()
        let summary = await sender.send(APNsNotificationList(notifications(400)), onResult: results.add)
        #expect(summary.delivered == 400)
        #expect(results.results.count == 400)
        // Each loop holds one of the connections (the pool keeps them until close).
        #expect(loops.map(\.liveConnectionCount) == Array(repeating: connections / loops.count, count: loops.count))
        await sender.close()
    }
}
