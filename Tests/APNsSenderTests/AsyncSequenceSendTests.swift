// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
@testable import APNsSender
import TestSupport
import Foundation
import Testing

/// `send(contentsOf:onResult:)`: an async sequence of notifications in, every result handed to
/// the caller's handler, with back-pressure both ways; every notification pulled from the input
/// gets its one result, however the batch ends (issue 32).
@Suite("Batches as async sequences")
struct AsyncSequenceSendTests {
    let fast = APNsRetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(10), outageDelay: .milliseconds(10), maximumOutageDelay: .milliseconds(50))

    /// An input that counts how many notifications were pulled from it.
    final class CountingInput: @unchecked Sendable {
        // @unchecked: `pulled` only under `lock`.
        private let lock = NSLock()
        private var count = 0
        var pulled: Int { lock.withLock { count } }
        func stream(_ total: Int, failAfter: Int? = nil) -> AsyncThrowingStream<APNsNotification, any Error> {
            let all = notifications(total)
            return AsyncThrowingStream(unfolding: { [self] in
                let position: Int? = lock.withLock {
                    guard count < all.count, count != failAfter else { return nil }
                    defer { count += 1 }
                    return count
                }
                guard let position else {
                    if let failAfter, pulled == failAfter { throw InputFailure() }
                    return nil
                }
                return all[position]
            })
        }
    }

    struct InputFailure: Error, Equatable {}

    @Test("10,000 notifications from an AsyncStream: one result each, every index once", .timeLimit(.minutes(1)))
    func everyNotificationOnce() async throws {
        let sender = BatchSender(connector: FakeGateway(), connections: 2, policy: fast)
        var indices = Set<Int>()
        var delivered = 0
        let summary = try await sender.send(contentsOf: CountingInput().stream(10_000)) { result in
            indices.insert(result.index)
            if result.isDelivered { delivered += 1 }
            return .continue
        }
        #expect(indices.count == 10_000 && indices.min() == 0 && indices.max() == 9_999)
        #expect(delivered == 10_000 && summary.total == 10_000 && summary.delivered == 10_000, "\(summary)")
        await sender.close()
    }

    @Test("A handler that stops reading holds the input back: read-ahead bounded by batchReadAhead, then .stop accounts for all",
          .timeLimit(.minutes(1)))
    func backPressure() async throws {
        let sender = BatchSender(connector: FakeGateway(), policy: fast)
        let input = CountingInput()
        let gate = Gate()
        let holding = Gate()
        let consumer = Task {
            var received: [APNsSendResult] = []
            let summary = try await sender.send(contentsOf: input.stream(100_000)) { result in
                received.append(result)
                if received.count == 10 {
                    holding.open()
                    await gate.wait()
                    return .stop
                }
                return .continue
            }
            return (received, summary)
        }
        // Wait until the handler holds its 10th result, the pipeline is full and the input
        // stops being pulled.
        await holding.wait()
        _ = await Wait.settled(quiet: .seconds(1), every: .milliseconds(200)) { input.pulled }
        let readAhead = input.pulled - 10
        let bound = APNsClient.batchReadAhead(concurrency: 100, connections: 1)
        #expect(readAhead <= bound, "read \(readAhead) ahead of the handler, more than the documented \(bound)")
        #expect(readAhead > 256, "the pipeline filled (\(readAhead) ahead)")
        print("send(contentsOf:onResult:) read \(readAhead) ahead of a handler that stopped reading (bound \(bound))")
        gate.open()
        let (received, summary) = try await consumer.value
        // Every notification pulled has its one result; the rest were never pulled.
        #expect(received.count == input.pulled, "\(received.count) results for \(input.pulled) pulled")
        #expect(Set(received.map(\.index)) == Set(0..<input.pulled))
        #expect(summary.total == input.pulled, "\(summary)")
        #expect(received.allSatisfy { $0.isDelivered || $0.outcome == .cancelled(written: false) })
        #expect(input.pulled < 100_000)
        await sender.close()
    }

    @Test("An input that throws: the results of what it yielded, then its error", .timeLimit(.minutes(1)))
    func inputErrorComesLast() async throws {
        let sender = BatchSender(connector: FakeGateway(), policy: fast)
        var count = 0
        await #expect(throws: InputFailure.self) {
            try await sender.send(contentsOf: CountingInput().stream(100, failAfter: 5)) { result in
                #expect(result.isDelivered)
                count += 1
                return .continue
            }
        }
        #expect(count == 5)
        await sender.close()
    }

    @Test("Cancelling the calling task: what was held comes back 'cancelled, written', the rest 'not sent', nothing unreported",
          .timeLimit(.minutes(1)))
    func cancellingTheCaller() async throws {
        var faults = FakeGateway.Faults()
        faults.holdAnswers = true
        let gateway = FakeGateway(faults)
        let sender = BatchSender(connector: gateway, concurrency: 10, policy: fast)
        let input = CountingInput()
        let consumer = Task {
            var received: [APNsSendResult] = []
            _ = try await sender.send(contentsOf: input.stream(100_000)) { result in
                received.append(result)
                return .continue
            }
            return received
        }
        #expect(await Wait.until { gateway.heldCount >= 10 })
        consumer.cancel()
        let received = try await consumer.value
        gateway.releaseHeld()
        await sender.close()
        #expect(received.count == input.pulled, "\(received.count) results for \(input.pulled) pulled")
        #expect(received.filter { $0.outcome == .cancelled(written: true) }.count == 10, "the window was written and given up")
        #expect(received.filter { $0.outcome == .cancelled(written: false) }.count == input.pulled - 10)
        #expect(input.pulled < 2_000)
    }
}
