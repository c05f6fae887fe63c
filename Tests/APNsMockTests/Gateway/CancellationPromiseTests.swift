// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import APNsProtocol
import APNsSender
import APNsTransport
import Foundation
import Testing
import TestSupport

/// "Not sent" is a promise a caller resends on (issue 21): checked against the mock gateway's
/// own record of what it received, not against what the sender believes.
@Suite("Cancelled sends: what was not written never reaches the gateway", .serialized)
struct CancellationPromiseTests {
    static let window = 20

    /// The gateway holds its answers (400 ms) and allows 10 streams per connection, so at most
    /// 20 requests are in flight (10 open streams, 10 queued inside nghttp2) when the task is
    /// cancelled: 3,000 child tasks are then cancelled one after another.
    @Test("Cancelling a task group of 3,000 single sends (concurrency 20): the gateway gets at most the window, every result tells the truth",
          .timeLimit(.minutes(2)))
    func cancelledTaskGroup() async throws {
        var faults = GatewayFaults()
        faults.delayMilliseconds = 400
        faults.maxConcurrentStreams = 10
        let f = try GatewayFixture(faults: faults)
        let client = APNsClient(endpoint: f.endpoint, trust: .caFile(f.caBundle), authentication: .certificate(try f.identity(.development)),
                                concurrency: Self.window, policy: APNsRetryPolicy(maximumAttempts: 1), requestTimeout: 30)
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let notifications = try (0..<3_000).map { n in
            APNsNotification(token: try APNsDeviceToken(parsing: String(format: "%064x", n + 1)), payload: payload, topic: "com.example.app")
        }
        let task = Task {
            await withTaskGroup(of: APNsSendResult.self) { group in
                for notification in notifications { group.addTask { await client.send(notification) } }
                var results: [APNsSendResult] = []
                for await result in group { results.append(result) }
                return results
            }
        }
        // Let the first window go out (the gateway holds their answers), then cancel. Not a wait
        // for an event: the moment of the cancel is the test's variable (every moment must keep
        // the promise), and the held answers are recorded only after their delay.
        try await Task.sleep(nanoseconds: 100_000_000)
        task.cancel()
        let results = await task.value
        await client.close()
        let received = try await f.settledRecord()

        #expect(results.count == 3_000 && Set(results.map(\.apnsIDText)).count == 3_000, "exactly one result per send")
        let byID = Dictionary(uniqueKeysWithValues: results.map { ($0.apnsIDText, $0) })
        for id in received {
            let outcome = byID[id]?.outcome
            #expect(outcome == .delivered || outcome == .cancelled(written: true), "the gateway received \(id), reported \(String(describing: outcome))")
        }
        let notSent = results.filter { $0.outcome == .cancelled(written: false) }
        let cancelledAfterWriting = results.filter { $0.outcome == .cancelled(written: true) }
        let delivered = results.filter(\.isDelivered)
        #expect(notSent.allSatisfy { !received.contains($0.apnsIDText) }, "a \"not sent\" result was received by the gateway")
        // At most the window was written and unanswered when the cancel came; nothing new was
        // written during the cancellation burst.
        #expect(cancelledAfterWriting.count <= Self.window, "\(cancelledAfterWriting.count) cancelled after being written")
        #expect(received.count <= delivered.count + Self.window, "the gateway received \(received.count), \(delivered.count) delivered")
        #expect(notSent.count >= 2_900, "most sends were never written: \(notSent.count)")
    }

    @Test("A send after close() fails at once with the closed error and opens no connection")
    func sendAfterClose() async throws {
        let f = try GatewayFixture()
        let client = APNsClient(endpoint: f.endpoint, trust: .caFile(f.caBundle), authentication: .certificate(try f.identity(.development)))
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let token = try APNsDeviceToken(parsing: String(repeating: "ab", count: 32))
        #expect(await client.send(APNsNotification(token: token, payload: payload, topic: "com.example.app")).isDelivered)
        await client.close()
        let late = await client.send(APNsNotification(token: token, payload: payload, topic: "com.example.app"))
        guard case .failed(let error) = late.outcome else {
            Issue.record("a send after close() was \(late.outcome)")
            return
        }
        #expect(error.code == .clientClosed && !error.mayHaveBeenDelivered, "\(error)")
        // A batch after close: every notification fails the same way, none is delivered.
        let codes = CodeCollector()
        let summary = await client.send(feed: APNsNotificationList(Array(repeating: APNsNotification(token: token, payload: payload, topic: "com.example.app"), count: 5))) { result in
            if case .failed(let error) = result.outcome { codes.add(error.code) }
        }
        #expect(summary.failed == 5 && summary.delivered == 0, "\(summary)")
        #expect(codes.all == Array(repeating: .clientClosed, count: 5))
        let received = try await f.settledRecord()
        #expect(received.count == 1, "only the send before close() reached the gateway")
    }
}

private final class CodeCollector: @unchecked Sendable {
    // @unchecked: `codes` only under `lock`.
    private let lock = NSLock()
    private var codes: [APNsSendError.Code] = []
    func add(_ code: APNsSendError.Code) { lock.withLock { codes.append(code) } }
    var all: [APNsSendError.Code] { lock.withLock { codes } }
}
