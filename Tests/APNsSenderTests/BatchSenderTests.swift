// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
@testable import APNsSender
import Foundation
import Testing

@Suite("Batch sending: exactly one final result per notification, under faults")
struct BatchSenderTests {
    let fast = APNsRetryPolicy(maximumAttempts: 8, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(10), maximumReconnects: 3)

    @Test("100,000 notifications with 429/503 answers and dropped connections: none lost, duplicates only where counted")
    func reliability() async throws {
        var faults = FakeGateway.Faults()
        faults.tooManyEvery = 97
        faults.unavailableEvery = 89
        faults.dropAfterProcessing = 5_000
        let gateway = FakeGateway(faults)
        let sender = BatchSender(connector: gateway, connections: 2, concurrency: 50, policy: fast)
        let collector = ResultCollector()
        let input = notifications(100_000)
        let summary = await sender.send(APNsNotificationList(input)) { collector.add($0) }

        #expect(summary.total == 100_000)
        #expect(summary.delivered == 100_000, "\(summary)")
        let results = collector.results
        #expect(results.count == 100_000)
        #expect(Set(results.map(\.index)).count == 100_000, "exactly one result per notification")
        // The gateway's record: every notification accepted at least once; more than once only
        // when its result says possibly duplicated.
        let byID = Dictionary(uniqueKeysWithValues: results.map { ($0.apnsIDText, $0) })
        #expect(gateway.accepted.count == 100_000)
        for (id, times) in gateway.accepted where times > 1 {
            #expect(byID[id]?.possiblyDuplicated == true)
        }
        #expect(summary.possiblyDuplicated > 0, "drops happened and were counted")
        #expect(summary.reconnects > 0)
        #expect(summary.retries > 0)
    }

    @Test("Permanent reasons are final at once; the result carries status, reason and timestamp")
    func permanent() async throws {
        let input = notifications(10)
        var faults = FakeGateway.Faults()
        faults.unregistered = [input[3].token.hex]
        let gateway = FakeGateway(faults)
        let collector = ResultCollector()
        let summary = await BatchSender(connector: gateway, policy: fast).send(APNsNotificationList(input)) { collector.add($0) }
        #expect(summary.rejected == 1 && summary.delivered == 9)
        let rejected = try #require(collector.results.first { !$0.isDelivered })
        #expect(rejected.outcome == .rejected(status: 410, reason: .unregistered, timestamp: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(rejected.attempts == 1)
        #expect(rejected.invalidatesToken)
    }

    @Test("An unreachable gateway fails every notification fast with the reason, after a bounded number of connects")
    func unreachable() async {
        var faults = FakeGateway.Faults()
        faults.failedConnects = -1
        let gateway = FakeGateway(faults)
        let summary = await BatchSender(connector: gateway, concurrency: 20, policy: fast).send(APNsNotificationList(notifications(1_000))) { _ in }
        #expect(summary.failed == 1_000)
        #expect(summary.connectionFailure?.contains("connection refused") == true)
        #expect(gateway.connects <= fast.maximumReconnects + 2)
    }

    @Test("A gateway that refuses the first connects is retried with back-off and then works")
    func reconnects() async {
        var faults = FakeGateway.Faults()
        faults.failedConnects = 2
        let summary = await BatchSender(connector: FakeGateway(faults), policy: fast).send(APNsNotificationList(notifications(100))) { _ in }
        #expect(summary.delivered == 100)
    }

    @Test("Invalid payloads are failed locally and never sent")
    func localChecks() async {
        var bad = notifications(1)[0]
        bad.payload = Array("not json".utf8)
        let gateway = FakeGateway()
        let result = await BatchSender(connector: gateway, policy: fast).send(bad)
        #expect(result.outcome == .failed(APNsSendError(.invalidNotification, "Not sent: the payload is not a JSON object.")))
        #expect(gateway.requestCount == 0)
    }

    @Test("Token auth: one provider token serves the whole batch")
    func tokenReuse() async throws {
        let signer = try APNsTokenSigner(key: try PrivateKey.generate(.ec256), keyID: "ABC123DEFG", teamID: "TEAM123456")
        let cache = ProviderTokenCache(signer: signer)
        let gateway = FakeGateway()
        let summary = await BatchSender(connector: gateway, policy: fast, tokens: cache).send(APNsNotificationList(notifications(2_000))) { _ in }
        #expect(summary.delivered == 2_000)
        #expect(cache.mintedCount == 1)
        #expect(gateway.authorizations.count == 1)
        #expect(gateway.authorizations.first?.hasPrefix("bearer ey") == true)
    }
}
