// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
@testable import APNsSender
import APNsTransport
import Synchronized
import Testing

/// The hand-over between single sends and the client's run (issue 33): a send pumps the run only
/// when the run asked for work and found none, and no send is ever left waiting unseen.
@Suite("SingleSendQueue: a send wakes the run only when it waits")
struct SingleSendQueueTests {
    static func notification() throws -> APNsNotification {
        APNsNotification(token: try APNsDeviceToken(bytes: Array(repeating: 7, count: 32)), payload: Array(#"{"aps":{}}"#.utf8))
    }

    /// Queues send `index` and answers it at once (so nothing waits on its continuation); the
    /// queued notification stays for `take`.
    func admit(_ queue: SingleSendQueue, _ index: Int) async throws -> SingleSendQueue.Admission {
        let notification = try Self.notification()
        var admission: SingleSendQueue.Admission?
        _ = await withUnsafeContinuation { continuation in
            let made = queue.enqueue(index, notification, continuation)
            admission = made
            if case .queued = made {
                queue.finish(BatchSender.unsent(index, notification, .cancelled(written: false)))
            } else {
                continuation.resume(returning: BatchSender.unsent(index, notification, .cancelled(written: false)))
            }
        }
        return admission!
    }

    func wakes(_ admission: SingleSendQueue.Admission) -> Bool? {
        if case .queued(let wakeRun) = admission { return wakeRun }
        return nil
    }

    func taken(_ take: BatchSource.Take) -> Int? {
        if case .item(let index, _) = take { return index }
        return nil
    }

    func isEmpty(_ take: BatchSource.Take) -> Bool {
        if case .empty = take { return true }
        return false
    }

    @Test("The first send after the run found nothing wakes it; sends before its next take do not")
    func wakesOnlyAWaitingRun() async throws {
        let queue = SingleSendQueue()
        #expect(try await wakes(admit(queue, 0)) == false, "the run has not asked yet: a pump would find it on its own")
        #expect(taken(queue.take()) == 0)
        #expect(isEmpty(queue.take()), "nothing left: the run now waits")
        #expect(try await wakes(admit(queue, 1)) == true)
        #expect(try await wakes(admit(queue, 2)) == false, "woken once; the pump takes both")
        #expect(taken(queue.take()) == 1)
        #expect(taken(queue.take()) == 2)
        #expect(isEmpty(queue.take()))
        #expect(isEmpty(queue.take()), "asking twice still waits once")
        #expect(try await wakes(admit(queue, 3)) == true)
    }

    @Test("Closed: what waited is handed back, the run sees the end, and a later send is refused")
    func closeEndsTheRun() async throws {
        let queue = SingleSendQueue()
        #expect(isEmpty(queue.take()))
        #expect(try await wakes(admit(queue, 0)) == true)
        #expect(queue.close().map(\.index) == [0])
        if case .ended = queue.take() {} else { Issue.record("a closed, empty queue must end the run") }
        if case .closed = try await admit(queue, 1) {} else { Issue.record("a send after close must be refused") }
    }

    @Test("Sends finished on a loop thread are resumed together at the end of its turn; elsewhere at once")
    func loopThreadResumesInStretches() async throws {
        let queue = SingleSendQueue()
        let notification = try Self.notification()
        let loop = EventLoop(name: "apnskit.test.singles")
        defer { loop.shutdown() }
        // Three sends wait; the loop finishes all three in one turn and, still in that turn,
        // sees them held; each send then gets its own result.
        let held = Locked<Int?>(nil)
        let results = await withTaskGroup(of: APNsSendResult.self) { group in
            for index in 0..<3 {
                group.addTask { await withUnsafeContinuation { _ = queue.enqueue(index, notification, $0) } }
            }
            while queue.waitingCount < 3 { await Task.yield() }
            loop.execute {
                for index in 0..<3 { queue.finish(BatchSender.unsent(index, notification, .cancelled(written: false))) }
                held.withLock { $0 = queue.heldForEndOfTurn }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(held.withLock { $0 } == 3, "held until the turn ended, not resumed one by one")
        #expect(results.map(\.index).sorted() == [0, 1, 2])
        #expect(queue.heldForEndOfTurn == 0)
        // Off a loop thread (a cancel), the send is resumed at once.
        let offLoop = await withUnsafeContinuation { continuation in
            _ = queue.enqueue(3, notification, continuation)
            queue.finish(BatchSender.unsent(3, notification, .cancelled(written: false)))
            #expect(queue.heldForEndOfTurn == 0)
        }
        #expect(offLoop.index == 3)
    }
}
