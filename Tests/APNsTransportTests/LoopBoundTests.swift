// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsTransport
import Foundation
import Testing

/// `LoopBound` is how a Sendable owner carries a loop-confined object, and the loop-confined
/// types check their thread at every entry point: with `precondition`, so a wrong thread stops
/// the process in every build (issue 32: it used to be `assert`, and some entry points did not
/// check at all). Each wrong-thread case runs in a child process (an exit test) and must crash
/// it; the same calls on the loop's thread pass.
@Suite("LoopBound and loop confinement")
struct LoopBoundTests {
    final class Box { var value = 0 }

    @Test("On its loop's thread the value is reachable; off it, isOnLoop says no")
    func onlyOnItsLoop() async {
        let loop = EventLoop.shared
        let bound = await onLoop(loop) { LoopBound(Box(), loop: loop) }
        #expect(!bound.isOnLoop)
        let seen = await onLoop(loop) {
            precondition(bound.isOnLoop)
            bound.value.value += 41
            bound.value.value += 1
            return bound.value.value
        }
        #expect(seen == 42)

        // Another loop's thread is not this loop's.
        let other = EventLoop(name: "loopbound.test")
        defer { other.shutdown() }
        #expect(await onLoop(other) { bound.isOnLoop } == false)
    }

    @Test("A value handed over whole (sending) may be wrapped off the loop, and is reached on it")
    func handedOverOffTheLoop() async {
        let loop = EventLoop.shared
        let bound = LoopBound(handingOver: Box(), loop: loop)
        #expect(await onLoop(loop) { bound.value.value += 7; return bound.value.value } == 7)
    }

    @Test("Reading a LoopBound's value off its loop stops the process")
    func offLoopReadStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = EventLoop(name: "apnskit.test.loopbound.read")
            let bound = await onLoop(loop) { LoopBound(Box(), loop: loop) }
            _ = bound.value
        }
        #expect(stoppedOffLoop(result, in: "LoopBound.swift"))
    }

    @Test("Making a LoopBound off its loop (without handing the value over) stops the process")
    func offLoopMakingStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = LoopBound(Box(), loop: EventLoop(name: "apnskit.test.loopbound.make"))
        }
        #expect(stoppedOffLoop(result, in: "LoopBound.swift"))
    }

    @Test("A connection's entry point called off its loop stops the process")
    func connectionOffLoopStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = EventLoop(name: "apnskit.test.loopbound.connection")
            let connection = await onLoop(loop) { try! detachedConnection(on: loop) }
            connection.value.enqueue([1, 2, 3])
        }
        #expect(stoppedOffLoop(result, in: "Connection.swift"))
    }

    @Test("An HTTP/2 session's entry point called off its loop stops the process")
    func sessionOffLoopStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = EventLoop(name: "apnskit.test.loopbound.session")
            let session = await onLoop(loop) {
                let connection = try! detachedConnection(on: loop).value
                return Handle(HTTP2Session(connection: connection, settings: HTTP2Settings(), role: HTTP2ClientRole()))
            }
            session.value.produce()
        }
        #expect(stoppedOffLoop(result, in: "HTTP2Session.swift"))
    }

    @Test("Registering a handler with the poller off the loop stops the process")
    func registrationOffLoopStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = EventLoop(name: "apnskit.test.loopbound.register")
            let connection = await onLoop(loop) { try! detachedConnection(on: loop) }
            loop.register(connection.value)
        }
        #expect(stoppedOffLoop(result, in: "EventLoop.swift"))
    }

    @Test("Scheduling a timer off the loop's thread stops the process")
    func offLoopSchedulingStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            EventLoop(name: "apnskit.test.loop.offloop").schedule(after: 60) {}
        }
        #expect(stoppedOffLoop(result, in: "EventLoop.swift"))
    }

    @Test("The same entry points pass on the loop's thread")
    func entryPointsPassOnTheLoop() async {
        let loop = EventLoop(name: "apnskit.test.loopbound.onloop")
        defer { loop.shutdown() }
        let ran = await onLoop(loop) { () -> Bool in
            guard let connection = try? detachedConnection(on: loop).value else { return false }
            let session = HTTP2Session(connection: connection, settings: HTTP2Settings(), role: HTTP2ClientRole())
            connection.enqueue([1, 2, 3])
            session.produce()
            loop.register(connection)
            loop.deregister(connection)
            loop.cancelTimer(loop.schedule(after: 60) {})
            connection.close(error: nil)
            return LoopBound(Box(), loop: loop).value.value == 0
        }
        #expect(ran)
    }
}

/// Whether a child process stopped on a loop check made in `file` (APNsTransport's), not on
/// anything else (a failed set-up also exits with a failure).
private func stoppedOffLoop(_ result: ExitTest.Result?, in file: String) -> Bool {
    guard let result else { return false }
    let text = String(decoding: result.standardErrorContent, as: UTF8.self)
    return text.contains("APNsTransport/\(file):") && text.contains("Called off its event loop's thread")
}

/// A loop-confined object carried to the test's thread on purpose, to call it from the wrong
/// thread. `@unchecked Sendable`: that misuse is what the tests check is caught.
private struct Handle<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A connection with no socket and no TLS (the fuzz harness's kind); on `loop`'s thread.
private func detachedConnection(on loop: EventLoop) throws -> Handle<Connection> {
    let context = try SSLContext(.client(identity: nil, trust: .system, verification: .none), server: false)
    return Handle(Connection(detachedOn: loop, context: context, host: "confinement.invalid"))
}

/// Runs `body` on `loop` and returns its result.
private func onLoop<T>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
    let result: Handle<T> = await withCheckedContinuation { continuation in
        loop.execute { continuation.resume(returning: Handle(body())) }
    }
    return result.value
}
