// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsProtocol
import APNsSender
import Foundation
import Testing
import TestSupport

/// Issue 32: a batch accounts for everything it takes from the caller's input. The two
/// experiments that lost track before (a task cancelled while the batch ran; a handler that
/// stops after 5 results), checked against the mock gateway's own record:
/// gateway record = reported delivered + reported `written: true`, and every notification
/// pulled from the input has exactly one result the caller saw (reported + never pulled = input).
@Suite("Batches account for everything they take", .serialized)
struct BatchAccountingTests {
    static let inputSize = 3_000

    /// An input that counts the notifications pulled from it.
    final class PulledInput: @unchecked Sendable {
        // @unchecked: `count` only under `lock`.
        private let lock = NSLock()
        private var count = 0
        private let all: [APNsNotification]
        var pulled: Int { lock.withLock { count } }

        init(_ size: Int) throws {
            let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
            all = try (0..<size).map { n in
                APNsNotification(token: try APNsDeviceToken(parsing: String(format: "%064x", n + 1)), payload: payload, topic: "com.example.app")
            }
        }

        var stream: AsyncStream<APNsNotification> {
            AsyncStream(unfolding: { [self] in
                lock.withLock {
                    guard count < all.count else { return nil }
                    defer { count += 1 }
                    return all[count]
                }
            })
        }
    }

    /// A gateway that holds its answers a little (requests stay in flight) and a client with
    /// the default window over two connections.
    func setUp() throws -> (GatewayFixture, APNsClient) {
        var faults = GatewayFaults()
        faults.delayMilliseconds = 20
        let f = try GatewayFixture(faults: faults)
        let client = APNsClient(endpoint: f.endpoint, trust: .caFile(f.caBundle), authentication: .certificate(try f.identity(.development)),
                                connections: 2, policy: APNsRetryPolicy(maximumAttempts: 1))
        return (f, client)
    }

    /// The two equalities, and one result per notification pulled.
    func checkAccount(_ results: [APNsSendResult], input: PulledInput, _ f: GatewayFixture, _ what: String) async throws {
        #expect(results.count == input.pulled, "\(what): \(results.count) results for \(input.pulled) pulled from the input")
        #expect(Set(results.map(\.index)) == Set(0..<input.pulled), "\(what): one result per index")
        #expect(input.pulled < Self.inputSize, "\(what): the batch ended early (\(input.pulled) pulled)")
        let record = try await f.settledRecord()
        let delivered = Set(results.filter(\.isDelivered).map(\.apnsIDText))
        let written = Set(results.filter { $0.outcome == .cancelled(written: true) }.map(\.apnsIDText))
        let unsent = results.filter { $0.outcome == .cancelled(written: false) }.map(\.apnsIDText)
        #expect(delivered.isSubset(of: record), "\(what): delivered and not in the gateway's record")
        #expect(record.isSubset(of: delivered.union(written)),
                "\(what): the gateway has \(record.subtracting(delivered).subtracting(written).count) never reported delivered or written")
        #expect(record == delivered.union(written),
                "\(what): record \(record.count), delivered \(delivered.count), written \(written.count), of them unrecorded \(written.subtracting(record).count)")
        #expect(unsent.allSatisfy { !record.contains($0) }, "\(what): a 'not sent' notification reached the gateway")
        #expect(results.count == delivered.count + written.count + unsent.count, "\(what): every result is one of the three")
        print("\(what): pulled \(input.pulled) of \(Self.inputSize), results \(results.count): delivered \(delivered.count), "
              + "cancelled written \(written.count), not sent \(unsent.count); gateway record \(record.count)")
    }

    @Test("The calling task cancelled while the batch runs: every notification pulled is reported, the record matches",
          .timeLimit(.minutes(2)))
    func cancelledWhileRunning() async throws {
        let (f, client) = try setUp()
        let input = try PulledInput(Self.inputSize)
        let started = Gate()
        let batch = Task {
            var results: [APNsSendResult] = []
            // An AsyncStream cannot fail, so neither can the batch: no `try` (typed throws).
            _ = await client.send(contentsOf: input.stream) { result in
                results.append(result)
                if results.count == 20 { started.open() }
                return .continue
            }
            return results
        }
        // The batch is under way (answers coming back, more in flight): cancel it.
        await started.wait()
        batch.cancel()
        let results = await batch.value
        await client.close()
        try await checkAccount(results, input: input, f, "cancelled")
        #expect(results.contains { $0.outcome == .cancelled(written: false) }, "some were pulled and never written")
    }

    @Test("The handler stops after 5 results: every notification pulled is reported, the record matches", .timeLimit(.minutes(2)))
    func stoppedAfterFive() async throws {
        let (f, client) = try setUp()
        let input = try PulledInput(Self.inputSize)
        var results: [APNsSendResult] = []
        let summary = await client.send(contentsOf: input.stream) { result in
            results.append(result)
            return results.count >= 5 ? .stop : .continue
        }
        await client.close()
        try await checkAccount(results, input: input, f, "stopped")
        #expect(summary.total == results.count, "\(summary)")
        #expect(results.count > 5, "what was in flight and read ahead came too")
    }
}
