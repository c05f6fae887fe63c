// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import APNsProtocol
import APNsSender
import APNsTransport
import Foundation
import MetricsTestKit
import Testing
import TestSupport

/// `APNsBroadcastClient` (issue 21, item 9) against the in-process mock gateway: channel calls
/// and broadcasts through pooled connections with `APNsClient`'s retries, outages, metrics and
/// cancellation, and typed answers; and the same calls made by curl, which we did not write.
@Suite("APNsBroadcastClient against the mock gateway", .serialized)
struct BroadcastClientTests {
    let fast = APNsRetryPolicy(maximumAttempts: 8, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(10), maximumReconnects: 2,
                               outageDelay: .milliseconds(2), maximumOutageDelay: .milliseconds(20))
    let update = Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{"score":1}}}"#.utf8)

    /// A client configured the public way: a custom gateway standing in for the sandbox, the
    /// mock's CA, token auth, the channel management port named in the configuration.
    func client(_ f: GatewayFixture, metrics: TestMetrics? = nil, managementPort: Int? = nil, authentication: APNsClient.Authentication? = nil,
                concurrency: Int = 100) throws -> APNsBroadcastClient {
        let token = APNsClient.Authentication.token(try APNsTokenSigner(key: f.authKey, keyID: f.keyID, teamID: f.teamID))
        var provider = APNsClient.Configuration(gateway: .custom(host: "127.0.0.1", port: f.gateway.providerPort, environment: .sandbox),
                                                authentication: authentication ?? token)
        provider.trust = .caFile(f.caBundle)
        provider.pool.concurrency = concurrency
        provider.bundleID = "com.example.app"
        provider.retry = fast
        let configuration = APNsBroadcastClient.Configuration(
            provider, channelManagement: .custom(host: "127.0.0.1", port: managementPort ?? f.gateway.channelsPort ?? 0))
        return try APNsBroadcastClient(configuration: configuration, metricsFactory: metrics ?? TestMetrics())
    }

    @Test("create, read, list, broadcast, delete: typed answers that match the gateway's record")
    func roundTrip() async throws {
        let f = try GatewayFixture()
        let client = try client(f)
        let requestID = UUID()
        let created = try await client.createChannel(storagePolicy: .noMessageStored, requestID: requestID)
        #expect(created.bundleID == "com.example.app" && created.storagePolicy == .noMessageStored && created.requestID == requestID)
        #expect(Data(base64Encoded: created.id.rawValue) != nil)
        let read = try await client.channel(created.id)
        #expect(read.storagePolicy == .noMessageStored && read.pushType == "LiveActivity")
        #expect(try await client.channels() == [created.id])

        var liveActivity = LiveActivityPayload(event: .update, contentState: .object([("score", .int(2))]))
        liveActivity.relevanceScore = 50
        let sent = await client.broadcast(APNsBroadcast(payload: liveActivity.json(), expiration: 0), to: created.id)
        #expect(sent.outcome == .delivered && sent.status == 200 && sent.attempts == 1, "\(sent)")
        let apnsID = try #require(sent.apnsID)
        let refused = await client.broadcast(APNsBroadcast(payload: update, expiration: 1_900_000_000), to: created.id)
        #expect(refused.outcome == .rejected(status: 400, reason: .badExpirationDate, timestamp: nil), "a policy-0 channel takes expiration 0 only")

        try await client.deleteChannel(created.id)
        #expect(try await client.channels().isEmpty)
        do {
            _ = try await client.channel(created.id)
            Issue.record("a deleted channel was read")
        } catch {
            #expect(error.code == .rejected && error.status == 400 && error.reason == .channelNotRegistered, "\(error)")
        }
        let records = try f.records()
        let broadcast = try #require(records.first { $0["protocol"] as? String == "broadcast" })
        #expect(broadcast["apns_id"] as? String == MessageID.text(apnsID) && broadcast["channel"] as? String == created.id.rawValue)
        // The mock records the calls it accepted, in order (one connection, one call at a time).
        #expect(records.filter { $0["protocol"] as? String == "channels" }.compactMap { $0["operation"] as? String }
                == ["create", "read", "list", "delete", "list"], "\(records)")
        await client.close()
        let closed = await client.broadcast(APNsBroadcast(payload: update, expiration: 0), to: created.id)
        #expect(closed.outcome == .failed(APNsSendError(.clientClosed, "Not sent: the client was closed.")), "\(closed)")
    }

    @Test("429 TooManyRequests and 503 are retried with back-off until delivered; metrics count each final answer, labelled sandbox")
    func retriedThenDelivered() async throws {
        var faults = GatewayFaults()
        faults.failureRates = [429: 0.4, 503: 0.1]
        let f = try GatewayFixture(faults: faults)
        let metrics = TestMetrics()
        let client = try client(f, metrics: metrics)
        let channel = try await client.createChannel()
        let channels = Array(repeating: channel.id, count: 30)
        let results = await client.broadcast(APNsBroadcast(payload: update), to: channels)
        #expect(results.allSatisfy { $0.isDelivered }, "\(results.filter { !$0.isDelivered })")
        let attempts = results.map(\.attempts).reduce(0, +)
        #expect(attempts > results.count, "with about half the answers refused, some broadcasts needed more than one attempt")
        #expect(try f.records().filter { $0["protocol"] as? String == "broadcast" }.count == 30, "each delivered exactly once")
        let delivered = try metrics.expectCounter("apns_broadcast_requests_total", [
            ("operation", "broadcast"), ("outcome", "delivered"), ("reason", "none"), ("environment", "sandbox"),
        ])
        #expect(delivered.totalValue == 30)
        #expect(try metrics.expectCounter("apns_broadcast_requests_total", [
            ("operation", "create"), ("outcome", "delivered"), ("reason", "none"), ("environment", "sandbox"),
        ]).totalValue == 1)
        #expect(try metrics.expectTimer("apns_broadcast_request_duration_seconds", [
            ("operation", "broadcast"), ("outcome", "delivered"), ("environment", "sandbox"),
        ]).values.count == 30)
        #expect(try metrics.expectCounter("apns_connects_total", [("result", "ok"), ("environment", "sandbox")]).totalValue == 2,
                "one connection per API, reused for every call")
        await client.close()
    }

    @Test("A broadcast lost with its connection (the gateway took it, then dropped the connection) is resent on a new one and marked possibly duplicated")
    func lostConnectionResent() async throws {
        var faults = GatewayFaults()
        faults.dropAfter = 2  // the second request on each connection is recorded, then the connection drops unanswered
        faults.dropMode = .accepted
        let f = try GatewayFixture(faults: faults)
        let client = try client(f)
        let channel = try await client.createChannel()  // the management connection's first request
        let first = await client.broadcast(APNsBroadcast(payload: update), to: channel.id)
        #expect(first.isDelivered && first.attempts == 1 && !first.possiblyDuplicated, "\(first)")
        let second = await client.broadcast(APNsBroadcast(payload: update), to: channel.id)
        #expect(second.isDelivered && second.attempts == 2 && second.possiblyDuplicated, "\(second)")
        let ids = try f.records().filter { $0["protocol"] as? String == "broadcast" }.compactMap { $0["apns_id"] as? String }
        #expect(ids.filter { $0 == second.apnsIDText }.count == 2, "the gateway has it twice, as the result warns: \(ids)")
        await client.close()
    }

    @Test("broadcast(_:to:) over many channels keeps at most connections x concurrency in flight; cancelled, the rest are never sent",
          .timeLimit(.minutes(1)))
    func windowBound() async throws {
        var slow = GatewayFaults()
        slow.delayMilliseconds = 30_000
        let f = try GatewayFixture(faults: slow)
        // The gateway records a call as it takes it and answers 30 s later: the channel exists
        // once its create is in the record (the create itself is then given up).
        func recorded(_ kind: String) throws -> [[String: Any]] { try f.records().filter { $0["protocol"] as? String == kind } }
        // Certificate auth: a token connection is held to one stream until a request succeeds (§8).
        let client = try client(f, authentication: .certificate(try f.identity(.universal)), concurrency: 2)
        let create = Task { try await client.createChannel() }
        _ = try await Wait.until(seconds: 30, every: .milliseconds(5)) { try !recorded("channels").isEmpty }
        create.cancel()
        let channel = APNsChannel.ID(try #require(try recorded("channels").first?["channel"] as? String))
        let task = Task { await client.broadcast(APNsBroadcast(payload: update), to: Array(repeating: channel, count: 6)) }
        func sent() throws -> Int { try recorded("broadcast").count }
        _ = try await Wait.until(seconds: 30, every: .milliseconds(5)) { try sent() >= 2 }
        #expect(try sent() == 2, "the window (1 connection x concurrency 2) is in flight")
        task.cancel()
        let results = await task.value
        #expect(results.filter { $0.outcome == .cancelled(written: true) }.count == 2, "\(results.map(\.outcome))")
        #expect(results.filter { $0.outcome == .cancelled(written: false) }.count == 4, "\(results.map(\.outcome))")
        #expect(try sent() == 2, "nothing beyond the window reached the gateway")
        await client.close()
    }

    @Test("An outage of the management gateway: calls fail fast as gatewayUnreachable, then the same client recovers", .timeLimit(.minutes(1)))
    func outageThenRecovery() async throws {
        let f = try GatewayFixture()
        let relay = try TCPRelay(target: UInt16(f.gateway.channelsPort ?? 0))
        defer { relay.stop() }
        let client = try client(f, managementPort: Int(relay.port))
        for _ in 0..<5 {
            do {
                _ = try await client.channels()
                Issue.record("a channel call succeeded while the gateway was down")
            } catch {
                #expect(error.code == .gatewayUnreachable && error.description.contains("refused") && !error.mayHaveBeenDelivered, "\(error)")
            }
        }
        relay.up()
        let recovered = await Wait.value(seconds: 60, every: .milliseconds(1)) { try? await client.channels() }
        #expect(recovered == [], "the client never recovered after the gateway came back")
        await client.close()
    }

    @Test("Task cancellation ends a call at once: while connecting to a peer that never answers, and while waiting for an answer")
    func cancellation() async throws {
        let silent = SilentListener()
        var slow = GatewayFaults()
        slow.delayMilliseconds = 30_000
        let f = try GatewayFixture(faults: slow)
        let connecting = try client(f, managementPort: Int(silent.port))
        let waiting = try client(f)
        func recorded() -> Int { ((try? f.records()) ?? []).count }
        for (name, client, written) in [("connecting", connecting, false), ("waiting for the answer", waiting, true)] {
            let before = recorded()
            let task = Task { try await client.channels() }
            // Cancel in the phase named: its connection is in the silent listener's backlog, or
            // the gateway has taken (and recorded) its call and holds the answer.
            let reached = await Wait.until(seconds: 30) {
                written ? recorded() > before : TCPTable.count(port: Int(silent.port), state: .established) >= 1
            }
            #expect(reached, "\(name): the call never got there")
            task.cancel()
            do {
                _ = try await task.value
                Issue.record("\(name): an answer came")
            } catch let error as APNsSendError {
                // Cancelled whenever this lands, never the 30 s answer or a timeout.
                #expect(error.code == .cancelled, "\(name): \(error)")
                if !written { #expect(!error.mayHaveBeenDelivered, "\(name): nothing was written") }
            }
        }
        let broadcast = Task { await waiting.broadcast(APNsBroadcast(payload: update), to: APNsChannel.ID("bm9uZQ==")) }
        // Not an event the test can see: the gateway records only calls that succeed, and this
        // one (an unknown channel) leaves no trace before its held answer; 300 ms puts the
        // cancel after the write on a connection that is already open.
        try await Task.sleep(nanoseconds: 300_000_000)
        broadcast.cancel()
        let result = await broadcast.value
        #expect(result.outcome == .cancelled(written: true), "\(result)")
        await connecting.close()
        await waiting.close()
    }

    @Test("curl --http2 makes the same channel calls and gets the answers our client parsed")
    func curlConformance() async throws {
        let f = try GatewayFixture()
        let client = try client(f)
        let first = try await client.createChannel(storagePolicy: .mostRecentMessageStored)
        let second = try await client.createChannel(storagePolicy: .noMessageStored)
        let base = "https://127.0.0.1:\(f.gateway.channelsPort ?? 0)/1/apps/com.example.app"
        let bearer = "authorization: bearer \(try f.token())"
        func curl(_ arguments: [String]) throws -> [String: Any] {
            let run = try ProcessRunner.run("curl", ["--http2", "--silent", "--show-error", "--cacert", f.caBundle, "-H", bearer] + arguments)
            #expect(run.status == 0, "\(run)")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run)")
        }
        let listed = try curl(["\(base)/all-channels"])
        #expect(listed["channels"] as? [String] == (try await client.channels()).map(\.rawValue))
        #expect(listed["channels"] as? [String] == [first.id.rawValue, second.id.rawValue])
        for channel in [first, second] {
            let read = try curl(["-H", "apns-channel-id: \(channel.id.rawValue)", "\(base)/channels"])
            let ours = try await client.channel(channel.id)
            #expect(read["message-storage-policy"] as? Int == ours.storagePolicy?.rawValue && ours.storagePolicy == channel.storagePolicy)
            #expect(read["push-type"] as? String == ours.pushType)
        }
        // Made by curl, read by our client; deleted by curl, gone for our client.
        let made = try await ProcessRunner.run("curl", ["--http2", "--silent", "--show-error", "--cacert", f.caBundle, "-H", bearer, "-X", "POST",
                                                  "--data", #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#,
                                                  "--output", "/dev/null", "--write-out", "%{http_code} %header{apns-channel-id}", "\(base)/channels"])
        let parts = made.stdout.split(separator: " ").map(String.init)
        #expect(made.status == 0 && parts.count == 2 && parts[0] == "201", "\(made)")
        let curlMade = APNsChannel.ID(parts.last ?? "")
        #expect(try await client.channel(curlMade).storagePolicy == .noMessageStored)
        #expect(try await client.channels() == [first.id, second.id, curlMade])
        let removed = try await ProcessRunner.run("curl", ["--http2", "--silent", "--show-error", "--cacert", f.caBundle, "-H", bearer, "-X", "DELETE",
                                                     "-H", "apns-channel-id: \(curlMade.rawValue)", "--write-out", "%{http_code}", "\(base)/channels"])
        #expect(removed.stdout == "204", "\(removed)")
        #expect(try await client.channels() == [first.id, second.id])
        let unknown = try curl(["-H", "apns-channel-id: bm9uZQ==", "\(base)/channels"])
        do {
            _ = try await client.channel(APNsChannel.ID("bm9uZQ=="))
            Issue.record("an unknown channel was read")
        } catch {
            #expect(unknown["reason"] as? String == error.reason?.rawValue && error.reason == .channelNotRegistered, "\(unknown) vs \(error)")
        }
        await client.close()
    }
}
