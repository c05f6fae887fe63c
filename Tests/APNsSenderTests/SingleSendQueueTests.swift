// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
@testable import APNsSender
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
        _ = await withCheckedContinuation { continuation in
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
}
