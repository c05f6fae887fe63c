// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender
import Foundation
import Testing

/// `send(contentsOf:)`: an async sequence of notifications in, an async sequence of results
/// out, with back-pressure both ways and cancellation that keeps the "not sent" promise.
@Suite("Batches as async sequences")
struct AsyncSequenceSendTests {
    let fast = APNsRetryPolicy(maximumAttempts: 3, baseDelay: 0.001, maximumDelay: 0.01, outageDelay: 0.01, maximumOutageDelay: 0.05)

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
        for try await result in sender.send(contentsOf: CountingInput().stream(10_000)) {
            indices.insert(result.index)
            if result.isDelivered { delivered += 1 }
        }
        #expect(indices.count == 10_000 && indices.min() == 0 && indices.max() == 9_999)
        #expect(delivered == 10_000)
        await sender.close()
    }

    @Test("A consumer that stops reading holds the input back: bounded read-ahead", .timeLimit(.minutes(1)))
    func backPressure() async throws {
        let sender = BatchSender(connector: FakeGateway(), policy: fast)
        let input = CountingInput()
        let results = sender.send(contentsOf: input.stream(100_000))
        var iterator = results.makeAsyncIterator()
        for _ in 0..<10 { _ = try await iterator.next() }
        // Wait until the pipeline is full and the input stops being pulled.
        var last = -1
        while input.pulled != last {
            last = input.pulled
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        // Buffers between input and consumer: 256 (sequence feed) + 256 (read-ahead) + 100 (in
        // flight) + 1,024 (results for the consumer's thread) + 256 (results for the consumer).
        #expect(input.pulled < 2_000, "the input was pulled \(input.pulled) times with 10 results consumed")
        // close() returns although this consumer holds its iterator and reads nothing: the
        // stopped batch's last results no longer wait for room. They are still all there.
        await sender.close()
        var rest = 0
        while let result = try await iterator.next() {
            #expect(result.isDelivered || result.outcome == .cancelled(written: false))
            rest += 1
        }
        #expect(10 + rest == input.pulled, "one result per notification pulled: \(10 + rest) for \(input.pulled)")
    }

    @Test("An input that throws: the results of what it yielded, then its error", .timeLimit(.minutes(1)))
    func inputErrorComesLast() async throws {
        let sender = BatchSender(connector: FakeGateway(), policy: fast)
        var count = 0
        await #expect(throws: InputFailure.self) {
            for try await result in sender.send(contentsOf: CountingInput().stream(100, failAfter: 5)) {
                #expect(result.isDelivered)
                count += 1
            }
        }
        #expect(count == 5)
        await sender.close()
    }

    @Test("Cancelling the consuming task stops the batch: what was held is 'cancelled, written', nothing else is sent", .timeLimit(.minutes(1)))
    func cancellingTheConsumer() async throws {
        var faults = FakeGateway.Faults()
        faults.holdAnswers = true
        let gateway = FakeGateway(faults)
        let sender = BatchSender(connector: gateway, concurrency: 10, policy: fast)
        let input = CountingInput()
        let consumer = Task {
            var seen = 0
            do { for try await _ in sender.send(contentsOf: input.stream(100_000)) { seen += 1 } } catch {}
            return seen
        }
        while gateway.heldCount < 10 { try await Task.sleep(nanoseconds: 1_000_000) }
        consumer.cancel()
        _ = await consumer.value
        gateway.releaseHeld()
        await sender.close()
        // The released requests reach the fake gateway on tasks of their own, which nothing
        // awaits: on a loaded machine `close()` can return before the last of them is counted
        // (seen: 9). Wait for the ten (at most 30 s), then check no more came.
        var waited = 0
        while gateway.requestCount < 10, waited < 30_000 {
            try await Task.sleep(nanoseconds: 1_000_000)
            waited += 1
        }
        #expect(gateway.requestCount == 10, "only the window was ever written: \(gateway.requestCount)")
        #expect(input.pulled < 2_000)
    }
}
