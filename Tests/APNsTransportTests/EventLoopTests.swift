// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsTransport
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The loop's readiness and timer dispatch, with socket pairs as handlers: who is called, when
/// interest changes, and what happens to events of a handler gone in the same turn. Each test
/// has a loop of its own and asserts on who was called after full loop turns, never on time.
@Suite("Event loop: readiness, interest and timers")
struct EventLoopTests {
    @Test("Of 200 registered sockets, only the 5 with input are handed events, each once")
    func onlyReadyHandlersAreCalled() async {
        await withTestLoop("apnskit.test.loop.ready") { loop, bench in
            let ready = [3, 57, 111, 160, 199]
            await onLoop(loop) {
                for name in 0..<200 { bench.add(PairHandler(name: name, drains: true), to: loop) }
            }
            await onLoop(loop) { for name in ready { bench.handlers[name].poke() } }
            #expect(await bench.callsAfterTwoTurns(of: loop).sorted() == ready)
        }
    }

    /// What makes a turn O(ready): with 200 handlers and 5 of them ready, a turn that only
    /// dispatches socket events reads the interest of those 5, not of every handler.
    @Test("Turns with only socket events re-read the interest of the 5 handlers that had them, not of the other 195")
    func interestIsReReadOnlyForReadyHandlers() async {
        await withTestLoop("apnskit.test.loop.reread") { loop, bench in
            let ready = [3, 57, 111, 160, 199]
            let calls = CallCount()
            let peers: [Int32] = await onLoop(loop) {
                for name in 0..<200 {
                    let handler = PairHandler(name: name, drains: true)
                    handler.afterEvents = { _ in calls.increment() }
                    bench.add(handler, to: loop)
                }
                return ready.map { bench.handlers[$0].peerFD }
            }
            // The turn running this closure ran queued work, so it re-reads every handler once
            // after it: each count is 1 when the next turn starts.
            await onLoop(loop) { for handler in bench.handlers { handler.interestReads = 0 } }
            // Two rounds of input written from this thread (no queued work, so no turn in
            // between re-reads everyone); the second round's events come after a turn that
            // re-read what the first round marked.
            for round in 1...2 {
                for peer in peers {
                    var byte: UInt8 = 1
                    _ = write(peer, &byte, 1)
                }
                #expect(await Wait.until { calls.current >= 5 * round })
            }
            let reads = await onLoop(loop) { bench.handlers.map(\.interestReads) }
            #expect(reads.indices.filter { !ready.contains($0) }.allSatisfy { reads[$0] == 1 })
            #expect(ready.allSatisfy { reads[$0] >= 2 })
        }
    }

    @Test("A handler deregistered by another in the same turn is not called for its pending events")
    func deregisteredWhileEventsArePending() async {
        await withTestLoop("apnskit.test.loop.deregister") { loop, bench in
            await onLoop(loop) {
                for name in 0..<2 {
                    let handler = PairHandler(name: name, drains: true)
                    // Whoever is called first closes both, as a connection closing its peer would.
                    handler.afterEvents = { _ in for each in bench.handlers { loop.deregister(each) } }
                    bench.add(handler, to: loop)
                }
            }
            // Both readable before the loop's next wait, so both are in the same batch of events.
            await onLoop(loop) { for handler in bench.handlers { handler.poke() } }
            #expect(await bench.callsAfterTwoTurns(of: loop).count == 1)
        }
    }

    @Test("Read interest: not called while it does not ask, called when it asks again, not again once it stops")
    func readInterestFollowsTheHandler() async {
        await withTestLoop("apnskit.test.loop.interest") { loop, bench in
            await onLoop(loop) {
                // Never drains: input stays readable, as with a paused reader (level-triggered).
                let handler = PairHandler(name: 0, drains: false)
                handler.wantsRead = false
                handler.afterEvents = { $0.wantsRead = false }
                bench.add(handler, to: loop)
                handler.poke()
            }
            #expect(await bench.callsAfterTwoTurns(of: loop).isEmpty)
            await onLoop(loop) { bench.handlers[0].wantsRead = true }
            #expect(await bench.callsAfterTwoTurns(of: loop) == [0])
            #expect(await bench.callsAfterTwoTurns(of: loop) == [0])
        }
    }

    /// One sender's completion on connection A submits the next request on connection B: B's
    /// interest changes inside A's event, and B says so (as `Connection.enqueue` does).
    @Test("Write interest another handler's event sets is polled after interestMayHaveChanged, and POLLOUT is reported")
    func writeInterestChangedByAnotherHandler() async {
        await withTestLoop("apnskit.test.loop.write") { loop, bench in
            await onLoop(loop) {
                let reader = PairHandler(name: 0, drains: true)
                let writer = PairHandler(name: 1, drains: true)
                writer.wantsRead = false
                reader.afterEvents = { _ in
                writer.wantsWrite = true
                loop.interestMayHaveChanged(writer)
            }
                writer.afterEvents = { handler in
                    if handler.lastEvents & Int16(POLLOUT) != 0 { bench.sawWritable = true }
                    handler.wantsWrite = false
                }
                bench.add(reader, to: loop)
                bench.add(writer, to: loop)
                reader.poke()
            }
            #expect(await bench.callsAfterTwoTurns(of: loop) == [0, 1])
            #expect(await onLoop(loop) { bench.sawWritable })
        }
    }

    /// A connection trying its next address closes its socket and opens another, which usually
    /// gets the same number; epoll forgot the closed one, so the loop must watch the new one.
    @Test("A handler's socket replaced under the same descriptor number is watched after descriptorReplaced")
    func replacedDescriptorIsWatched() async {
        await withTestLoop("apnskit.test.loop.replace") { loop, bench in
            await onLoop(loop) {
                let handler = PairHandler(name: 0, drains: true)
                bench.add(handler, to: loop)
                handler.poke()
            }
            #expect(await bench.callsAfterTwoTurns(of: loop) == [0])
            await onLoop(loop) {
                bench.handlers[0].replaceSocketKeepingItsNumber()
                loop.descriptorReplaced(bench.handlers[0])
                bench.handlers[0].poke()
            }
            #expect(await bench.callsAfterTwoTurns(of: loop) == [0, 0])
        }
    }

    @Test("Timers due together fire in the order they were scheduled; cancelled ones never fire")
    func timersOnTheLoop() async {
        await withTestLoop("apnskit.test.loop.timers") { loop, _ in
            let fired: [Int] = await withCheckedContinuation { continuation in
                loop.execute {
                    var order: [Int] = []
                    var ids: [UInt64] = []
                    for value in 0..<50 { ids.append(loop.schedule(after: 0.002) { order.append(value) }) }
                    for value in stride(from: 0, to: 50, by: 3) { loop.cancelTimer(ids[value]) }
                    // Same delay, scheduled last: its deadline is no earlier and it sorts after the rest.
                    loop.schedule(after: 0.002) { continuation.resume(returning: order) }
                }
            }
            #expect(fired == (0..<50).filter { $0 % 3 != 0 })
        }
    }

    @Test("Work for the end of the turn runs after the turn's own work and the handlers' events, before the loop waits; off a loop thread nothing is kept")
    func endOfTurnWork() async {
        #expect(EventLoop.onLoopThread == false)
        #expect(EventLoop.atEndOfTurn {} == false, "a thread that runs no loop gets false and keeps the work itself")
        await withTestLoop("apnskit.test.loop.endofturn") { loop, bench in
            let order: [String] = await withCheckedContinuation { continuation in
                loop.execute {
                    var order: [String] = []
                    let handler = PairHandler(name: 0, drains: true)
                    handler.afterEvents = { _ in
                        order.append("event")
                        // Handed over from the handler, and again from that work: all of it runs
                        // before the loop waits again (nothing else would wake it).
                        _ = EventLoop.atEndOfTurn {
                            order.append("after event")
                            _ = EventLoop.atEndOfTurn {
                                order.append("after that")
                                continuation.resume(returning: order)
                            }
                        }
                    }
                    bench.add(handler, to: loop)
                    _ = EventLoop.atEndOfTurn { order.append("end of first turn") }
                    handler.poke()
                    order.append("first turn")
                }
            }
            #expect(order == ["first turn", "end of first turn", "event", "after event", "after that"])
            #expect(await onLoop(loop) { EventLoop.onLoopThread })
        }
    }

    @Test("preconditionInLoop stops any build off the loop's thread, and passes on it")
    func preconditionInLoop() async {
        await withTestLoop("apnskit.test.loop.precondition") { loop, _ in
            #expect(await onLoop(loop) { loop.preconditionInLoop(); return loop.inLoop })
        }
        await #expect(processExitsWith: .failure) {
            EventLoop.shared.preconditionInLoop()
        }
    }
}

/// Runs `body` with a loop of its own and the bench it keeps on it; stops the loop after.
private func withTestLoop(_ name: String, _ body: (EventLoop, LoopBench) async -> Void) async {
    let loop = EventLoop(name: name)
    defer { loop.shutdown() }
    await body(loop, LoopBench())
}

/// Runs `body` on `loop` and returns its result. When it returns, the loop has finished the
/// turn that ran `body` up to its queue: events made ready by `body` are dispatched by the next
/// call's turn at the latest.
@discardableResult
private func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: body()) } }
}

/// What a test keeps on its loop: the handlers, and whose events were handed over, in order.
/// `@unchecked Sendable`: touched on the loop thread only (inside `onLoop` and handlers).
private final class LoopBench: @unchecked Sendable {
    var handlers: [PairHandler] = []
    var calls: [Int] = []
    var sawWritable = false

    func add(_ handler: PairHandler, to loop: EventLoop) {
        handler.bench = self
        handlers.append(handler)
        loop.register(handler)
    }

    /// The calls so far, read after two full loop turns (each `onLoop` is one turn).
    func callsAfterTwoTurns(of loop: EventLoop) async -> [Int] {
        await onLoop(loop) {}
        return await onLoop(loop) { self.calls }
    }
}

/// One end of a non-blocking socket pair, polled by the loop; `poke` writes into the other end.
/// Loop-confined: made, changed and freed on the loop thread (or after the loop stopped).
private final class PairHandler: PollHandler {
    let name: Int
    private(set) var fd: Int32
    private var peer: Int32
    /// How often the loop read `wantsRead` (the interest re-reads a turn costs).
    var interestReads = 0
    private var readInterest = true
    var wantsRead: Bool {
        get {
            interestReads += 1
            return readInterest
        }
        set { readInterest = newValue }
    }
    var wantsWrite = false
    private(set) var lastEvents: Int16 = 0
    weak var bench: LoopBench?
    var afterEvents: (PairHandler) -> Void = { _ in }
    private let drains: Bool

    init(name: Int, drains: Bool) {
        self.name = name
        self.drains = drains
        (fd, peer) = Self.socketPair()
    }

    deinit {
        close(fd)
        close(peer)
    }

    func handleEvents(_ events: Int16) {
        lastEvents = events
        bench?.calls.append(name)
        if drains {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(fd, &buffer, buffer.count) > 0 {}
        }
        afterEvents(self)
    }

    /// The other end, for a test thread that writes without the loop.
    var peerFD: Int32 { peer }

    func poke() {
        var byte: UInt8 = 1
        _ = write(peer, &byte, 1)
    }

    /// A new socket pair whose polled end takes over this end's number (dup2 closes the old
    /// socket, which leaves every epoll set it was in).
    func replaceSocketKeepingItsNumber() {
        let (newEnd, newPeer) = Self.socketPair()
        close(peer)
        _ = dup2(newEnd, fd)
        close(newEnd)
        peer = newPeer
    }

    private static func socketPair() -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0, "socketpair failed (errno \(errno))")
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (fds[0], fds[1])
    }
}

/// A count the loop's handlers raise and the test's thread reads.
private final class CallCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func increment() { lock.withLock { value += 1 } }
    var current: Int { lock.withLock { value } }
}
