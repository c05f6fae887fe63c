// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
@testable import APNsSender
import Foundation
import Testing
import TestSupport

/// Issue 32: a notification written once is never reported safe to resend, whatever fails
/// after it (the soak's "safe to resend" for an apns-id in the gateway's record).
@Suite("A result keeps the word of every earlier attempt")
struct ResultWordTests {
    let fast = APNsRetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(10), maximumReconnects: 2,
                               outageDelay: .milliseconds(10), maximumOutageDelay: .milliseconds(50))

    /// The gateway records every request, the first connection dies after its first request
    /// (processed, unanswered), and no connection can be made after it.
    func gatewayThatDiesAfterTheFirstRequest() -> FakeGateway {
        var faults = FakeGateway.Faults()
        faults.dropAfterProcessing = 1
        faults.connectsBeforeOutage = 1
        return FakeGateway(faults)
    }

    @Test("A batch: lost in flight, then the gateway unreachable: failed, may have been delivered")
    func batchLostThenUnreachable() async throws {
        let gateway = gatewayThatDiesAfterTheFirstRequest()
        let sender = BatchSender(connector: gateway, policy: fast)
        let collector = ResultCollector()
        _ = await sender.send(APNsNotificationList(notifications(1))) { collector.add($0) }
        await sender.close()
        let result = try #require(collector.results.first)
        #expect(gateway.accepted[result.apnsIDText] == 1, "the gateway has it")
        guard case .failed(let error) = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(error.code == .gatewayUnreachable)
        #expect(error.mayHaveBeenDelivered, "\(error)")
        #expect(result.mayHaveBeenDelivered && result.possiblyDuplicated)
    }

    @Test("A single send: lost in flight, then the gateway unreachable: failed, may have been delivered")
    func singleLostThenUnreachable() async throws {
        let gateway = gatewayThatDiesAfterTheFirstRequest()
        let sender = BatchSender(connector: gateway, policy: fast)
        let result = await sender.send(notifications(1)[0])
        await sender.close()
        #expect(gateway.accepted[result.apnsIDText] == 1, "the gateway has it")
        #expect(result.mayHaveBeenDelivered, "\(result.outcome)")
    }

    @Test("Answered 503 every time, then the gateway unreachable: failed, never written, on the batch path and the channel/broadcast path alike")
    func answeredThenUnreachable() async throws {
        let policy = APNsRetryPolicy(maximumAttempts: 1_000, baseDelay: fast.baseDelay, maximumDelay: fast.maximumDelay,
                                     maximumReconnects: fast.maximumReconnects, outageDelay: fast.outageDelay, maximumOutageDelay: fast.maximumOutageDelay)
        for path in ["batch", "exchange"] {
            var faults = FakeGateway.Faults()
            faults.unavailableEvery = 1
            faults.connectsBeforeOutage = 1
            let gateway = FakeGateway(faults)
            let notification = notifications(1)[0]
            let sending = Task { () -> (outcome: APNsSendResult.Outcome, attempts: Int, possiblyDuplicated: Bool) in
                if path == "batch" {
                    let sender = BatchSender(connector: gateway, policy: policy)
                    let collector = ResultCollector()
                    _ = await sender.send(APNsNotificationList([notification])) { collector.add($0) }
                    await sender.close()
                    guard let result = collector.results.first else { return (.delivered, 0, true) }
                    return (result.outcome, result.attempts, result.possiblyDuplicated)
                }
                let pool = ConnectionPool(connector: gateway, size: 1, policy: policy, observer: SenderObserver(logger: nil, environment: "custom"))
                let answer = await PooledExchange(pool: pool, policy: policy, tokens: nil).perform(notification.request(apnsID: APNsNotification.newID()))
                await pool.closeAll()
                return (answer.outcome, answer.attempts, answer.possiblyDuplicated)
            }
            // Every attempt is answered 503 until the connection goes; no new one can be made.
            #expect(await Wait.until { gateway.requestsSoFar >= 1 }, "\(path): no request reached the gateway")
            gateway.connectionsSoFar.first?.close()
            let result = await sending.value
            guard case .failed(let error) = result.outcome else {
                Issue.record("\(path): \(result.outcome)")
                continue
            }
            // PooledExchange said "connectionLost, may have been delivered" here: it counted an
            // answered attempt as written (apns-protocol.md §1: a 503 was not taken).
            #expect(error.code == .gatewayUnreachable && !error.mayHaveBeenDelivered, "\(path): \(error)")
            #expect(result.attempts >= 1 && !result.possiblyDuplicated && gateway.acceptedSoFar.isEmpty, "\(path): \(result)")
        }
    }

    @Test("The outcomes that follow a lost attempt never say 'not sent'")
    func outcomesAfterALostAttempt() {
        let unreachable = APNsSendResult.Outcome.failed(APNsSendError(.gatewayUnreachable, "Cannot reach the gateway."))
        guard case .failed(let error) = unreachable.afterEarlierAttempt(mayHaveBeenDelivered: true) else { Issue.record(); return }
        #expect(error.mayHaveBeenDelivered && error.code == .gatewayUnreachable)
        #expect(APNsSendResult.Outcome.cancelled(written: false).afterEarlierAttempt(mayHaveBeenDelivered: true) == .cancelled(written: true))
        #expect(unreachable.afterEarlierAttempt(mayHaveBeenDelivered: false) == unreachable, "no earlier attempt: unchanged")
        let rejected = APNsSendResult(index: 0, token: notifications(1)[0].token, apnsIDText: APNsNotification.newID(),
                                      outcome: .rejected(status: 503, reason: .serviceUnavailable, timestamp: nil), attempts: 4,
                                      possiblyDuplicated: true)
        #expect(rejected.mayHaveBeenDelivered, "a 503 answers the last attempt, not the one lost before it")
    }
}
