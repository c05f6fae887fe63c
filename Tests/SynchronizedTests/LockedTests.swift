import Foundation
import Synchronized
import Testing

@Suite struct LockedTests {
    /// Eight threads adding 10,000 each: without the lock, read-modify-write races lose updates.
    @Test func everyChangeUnderTheLockCounts() {
        let counter = Locked(0)
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            Thread {
                for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(counter.withLock { $0 } == 80_000)
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
        Thread {
            let value = state.withLock(waitingUntil: { state in
                state.checks += 1
                return state.ready
            }) { $0.ready }
            seen.withLock { $0 = value }
            done.signal()
        }.start()
        // Wait until the thread has looked at the state at least once (it is then waiting or
        // about to), then change it.
        while state.withLock({ $0.checks }) == 0 { Thread.sleep(forTimeInterval: 0.001) }
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
