// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsOutbox
import APNsProtocol
import APNsSender
import Foundation
import Testing
import TestSupport

/// The rules every outbox worker (and any queue consumer using the library) follows, without
/// a database: the row's notification and identifiers, and what each send result does to a row.
@Suite("Outbox rules: row identifiers, collapse ids and dispositions (issue 35)")
struct OutboxRulesTests {
    let token = String(repeating: "ab", count: 32)

    func row(_ id: Int64 = 7, collapseID: String? = nil, attempts: Int = 1) -> APNsOutboxRow {
        APNsOutboxRow(id: id, token: token, topic: "com.example.app", pushType: "alert", priority: nil, expiration: nil, collapseID: collapseID,
                      payload: #"{"aps":{}}"#, payloadBytes: 10, attempts: attempts, possiblyDuplicated: false)
    }

    @Test("a row's apns-id is Python's uuid.uuid5 of apns_outbox:<id> in the documented namespace")
    func apnsIDIsVersion5() async throws {
        let ids: [Int64] = [1, 42, 9_007_199_254_740_993]
        let program = "import sys, uuid\nfor i in sys.argv[1:]: print(uuid.uuid5(uuid.UUID(sys.argv[1]), 'apns_outbox:' + i))"
        let python = try await ProcessRunner.run("python3", ["-c", program.replacingOccurrences(of: "sys.argv[1:]", with: "sys.argv[2:]"),
                                                              APNsOutboxIdentity.namespace.uuidString.lowercased()] + ids.map(String.init))
        let output = python.stdout
        let ours = ids.map { row($0).apnsID.uuidString.lowercased() }
        #expect(output.split(separator: "\n").map(String.init) == ours, "python: \(output)")
    }

    @Test("the collapse id: the row's apns-id by default, the row's own when set, none for '' or when the worker turns it off")
    func collapseIDs() throws {
        let defaulted = try row().notification(rowCollapseID: true).get()
        #expect(defaulted.collapseID == row().apnsID.uuidString.lowercased())
        #expect(defaulted.apnsID == row().apnsID)
        #expect(try row(collapseID: "news").notification(rowCollapseID: true).get().collapseID == "news")
        #expect(try row(collapseID: "").notification(rowCollapseID: true).get().collapseID == nil)
        #expect(try row().notification(rowCollapseID: false).get().collapseID == nil)
    }

    func result(_ outcome: APNsSendResult.Outcome, duplicated: Bool = false) throws -> APNsSendResult {
        APNsSendResult(index: 0, token: try APNsDeviceToken(parsing: token), apnsIDText: row().apnsID.uuidString.lowercased(), outcome: outcome,
                       attempts: 1, possiblyDuplicated: duplicated)
    }

    @Test("what each result does to a row: final, retried (counted, flagged when APNs may have it) or released (untried, not counted)")
    func dispositions() throws {
        let gone = Date(timeIntervalSince1970: 1_700_000_000)
        func of(_ outcome: APNsSendResult.Outcome, attempt: Int = 1, duplicated: Bool = false) throws -> APNsOutboxDisposition {
            .of(try result(outcome, duplicated: duplicated), attempt: attempt, maximumAttempts: 3, retryDelay: .seconds(2))
        }
        #expect(try of(.delivered).action == .finish(.delivered))
        #expect(try of(.delivered, duplicated: true).possiblyDuplicated)
        let unregistered = try of(.rejected(status: 410, reason: .unregistered, timestamp: gone))
        #expect(unregistered.action == .finish(.rejected) && unregistered.status == 410 && unregistered.reason == .unregistered && unregistered.unregisteredAt == gone)
        #expect(try of(.rejected(status: 503, reason: .serviceUnavailable, timestamp: nil)).action == .retry(after: .seconds(2)))
        #expect(try of(.rejected(status: 503, reason: .serviceUnavailable, timestamp: nil), attempt: 3).action == .finish(.rejected))
        let unreachable = APNsSendError(.gatewayUnreachable, "connection refused")
        #expect(try of(.failed(unreachable), attempt: 3).action == .release(after: .seconds(2)), "never written: never failed, never counted")
        let lost = APNsSendError(.connectionLost, "the connection died with it in flight", mayHaveBeenDelivered: true)
        let retried = try of(.failed(lost))
        #expect(retried.action == .retry(after: .seconds(2)) && retried.possiblyDuplicated)
        #expect(try of(.failed(lost), attempt: 3).action == .finish(.failed))
        #expect(try of(.cancelled(written: false)).action == .release(after: .zero))
        let written = try of(.cancelled(written: true))
        #expect(written.action == .retry(after: .zero) && written.possiblyDuplicated)
    }

    @Test("rows APNs would refuse are refused before sending, with APNs' reason")
    func refusedRows() {
        func reason(_ change: (inout APNsOutboxRow) -> Void) -> APNsReason? {
            var value = row()
            change(&value)
            if case .failure(let refused) = value.notification(rowCollapseID: true) { return refused.reason }
            return nil
        }
        #expect(reason { $0.token = "xyz" } == .badDeviceToken)
        #expect(reason { $0.token = nil; $0.oversizeColumn = "token" } == .badDeviceToken)
        #expect(reason { $0.pushType = "pigeon" } == .invalidPushType)
        #expect(reason { $0.priority = 7 } == .badPriority)
        #expect(reason { $0.expiration = -1 } == .badExpirationDate)
        #expect(reason { $0.payload = nil; $0.payloadBytes = 9_000 } == .payloadTooLarge)
        #expect(reason { $0.payload = "" } == .payloadEmpty)
        #expect(reason { $0.collapseID = String(repeating: "c", count: 65) } == .badCollapseId)
        #expect(reason { _ in } == nil)
    }
}
