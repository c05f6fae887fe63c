// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsSender
import APNsTransport
import Foundation
import Testing

/// A send whose task is cancelled after its request went out resets the stream
/// (RST_STREAM CANCEL): against a real `HTTP2Server` that allows one stream at a time and
/// holds the first answer, the next send on the same connection only gets a stream once the
/// reset reached the server.
@Suite("A cancelled send resets its stream")
struct CancelledSendTests {
    /// The held request's arrival and its release, across the server's handler task and the test.
    actor Hold {
        private var arrived = false
        private var arrivalWaiters: [CheckedContinuation<Void, Never>] = []
        private var released = false
        private var releaseWaiters: [CheckedContinuation<Void, Never>] = []

        func arriveAndWait() async {
            arrived = true
            arrivalWaiters.forEach { $0.resume() }
            arrivalWaiters.removeAll()
            if released { return }
            await withCheckedContinuation { releaseWaiters.append($0) }
        }

        func waitForArrival() async {
            if arrived { return }
            await withCheckedContinuation { arrivalWaiters.append($0) }
        }

        func release() {
            released = true
            releaseWaiters.forEach { $0.resume() }
            releaseWaiters.removeAll()
        }
    }

    @Test("Cancelled after its request went out: .cancelled, the stream slot freed, the next send on the same connection delivered")
    func cancelledSendFreesTheStream() async throws {
        let material = try HTTP2ProviderConnectionTests.Material()
        let hold = Hold()
        let connections = HTTP2ProviderConnectionTests.Box()
        let identity = try IdentityLoader.load([material.serverCert, material.serverKey], passphrases: .none)
        // One stream per connection: a stream that was not reset keeps the next request queued.
        let server = try HTTP2Server.start(tls: .server(identity: identity), settings: HTTP2Settings(maxConcurrentStreams: 1)) { request in
            connections.add(String(request.connectionID))
            if request.path.hasSuffix("ff") { await hold.arriveAndWait() }
            return HTTP2Response(status: 200, headers: [("apns-id", request.header("apns-id") ?? "")])
        }
        defer { server.stop() }
        // One attempt, and a deadline far beyond what a freed stream needs: without the reset
        // the second send waits for the held stream and fails at its deadline.
        let client = APNsClient(endpoint: Endpoint(host: "127.0.0.1", port: server.port), trust: .caFile(material.serverCert),
                                authentication: .token(try material.signer()), policy: APNsRetryPolicy(maximumAttempts: 1), requestTimeout: 10)
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let held = APNsNotification(token: try APNsDeviceToken(parsing: String(repeating: "ff", count: 32)), payload: payload, topic: "com.example.app")
        let next = APNsNotification(token: try APNsDeviceToken(parsing: String(repeating: "ab", count: 32)), payload: payload, topic: "com.example.app")

        let first = Task { await client.send(held) }
        await hold.waitForArrival()
        first.cancel()
        #expect(await first.value.outcome == .cancelled(written: true))

        let second = await client.send(next)
        #expect(second.outcome == .delivered, "\(second.outcome)")
        #expect(Set(connections.all).count == 1, "both requests on one connection: \(connections.all)")
        await hold.release()
        await client.close()
    }
}
