// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized
import Testing

@Suite struct LockedTests {
    /// Eight threads, released together, each entering the lock 100,000 times: no body ever
    /// starts while another runs, and no increment is lost. Every 1,000th body yields the
    /// processor halfway through, so without the lock another thread would run inside it
    /// whatever the machine's load (with the lock, the others just wait).
    @Test(.timeLimit(.minutes(1))) func bodiesNeverOverlap() {
        struct Tally {
            var count = 0
            var inside = false
            var overlaps = 0
        }
        let tally = Locked(Tally())
        let go = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            Thread {
                go.wait()
                for round in 0..<100_000 {
                    tally.withLock { tally in
                        if tally.inside { tally.overlaps += 1 }
                        tally.inside = true
                        if round % 1_000 == 0 { sched_yield() }
                        tally.count += 1
                        tally.inside = false
                    }
                }
                group.leave()
            }.start()
        }
        for _ in 0..<8 { go.signal() }
        group.wait()
        let result = tally.withLock { $0 }
        #expect(result.overlaps == 0)
        #expect(result.count == 800_000)
    }

    /// A state that is not `Sendable` (a class) is shared through the box: only `withLock`
    /// reaches it, and what leaves it (an `Int`) is `Sendable`.
    @Test func holdsStateThatIsNotSendable() async {
        final class Tally { var values: [Int] = [] }
        let box = Locked(Tally())
        await withTaskGroup(of: Void.self) { group in
            for value in 0..<100 {
                group.addTask { box.withLock { $0.values.append(value) } }
            }
        }
        #expect(box.withLock { $0.values.sorted() } == Array(0..<100))
    }

    /// A thread waiting for the state wakes when another changes it and broadcasts, and its
    /// body sees the change.
    @Test(.timeLimit(.minutes(1))) func waiterWakesOnBroadcast() {
        let state = Locked((ready: false, checks: 0))
        let seen = Locked<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        let looked = DispatchSemaphore(value: 0)
        Thread {
            let value = state.withLock(waitingUntil: { state in
                state.checks += 1
                if state.checks == 1 { looked.signal() }
                return state.ready
            }) { $0.ready }
            seen.withLock { $0 = value }
            done.signal()
        }.start()
        // Wait until the thread has looked at the state at least once (it is then waiting or
        // about to), then change it.
        #expect(looked.wait(timeout: .now() + 60) == .success)
        state.withLock { $0.ready = true }
        state.broadcast()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(seen.withLock { $0 } == true)
        // At least the first check and the one after the wake-up.
        #expect(state.withLock { $0.checks } >= 2)
    }

    /// With a deadline and a state that never becomes ready, the body still runs (and sees
    /// the state as it is) once the deadline passes.
    @Test(.timeLimit(.minutes(1))) func deadlineEndsTheWait() {
        let state = Locked(false)
        let ran = state.withLock(waitingUntil: { $0 }, deadline: Date(timeIntervalSinceNow: 0.05)) { ready in
            ready ? "ready" : "deadline"
        }
        #expect(ran == "deadline")
    }
}

@Suite struct LatchTests {
    /// Waiters that came before `open` and one that comes after all return; `open` twice is
    /// harmless.
    @Test(.timeLimit(.minutes(1))) func openReleasesEveryWaiterOnce() async {
        let latch = Latch()
        let returned = Locked(0)
        let started = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    started.withLock { $0 += 1 }
                    await latch.wait()
                    returned.withLock { $0 += 1 }
                }
            }
            while started.withLock({ $0 }) < 10 { await Task.yield() }
            #expect(!latch.isOpen)
            latch.open()
            latch.open()
        }
        #expect(returned.withLock { $0 } == 10)
        #expect(latch.isOpen)
        await latch.wait()
    }
}
