// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized

/// SIGINT and SIGTERM as an event a command can act on: stop what it is doing, write what it
/// has, print its summary and exit 128 + the signal (130, 143), so "every result written"
/// holds for an interrupted run too. A second signal ends the process at once with the same
/// code: whatever was already handed to the kernel (record lines, outputs linked in whole by
/// `SecureFileWriter`) stays as it is. A command that can still write what it knows quickly
/// (`push`: give in-flight requests up, then write every result) says so with
/// `onSecondSignal`, and exits itself.
final class Interruption: Sendable {
    private struct State {
        var signalNumber: Int32?
        var actions: [@Sendable (Int32) -> Void] = []
        var secondAction: (@Sendable () -> Void)?
        var secondReceived = false
        /// Keeps the signal sources alive as long as this (they are not `Sendable`, so they sit
        /// in a box of their own, filled once by `install`).
        var sources: Locked<[DispatchSourceSignal]>?
    }

    private let state = Locked(State())

    /// Takes over SIGINT and SIGTERM for the rest of the process.
    static func install() -> Interruption {
        let interruption = Interruption()
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { interruption.received(number) }
            source.resume()
            sources.append(source)
        }
        let kept = Locked(sources)
        interruption.state.withLock { $0.sources = kept }
        return interruption
    }

    /// The first signal received, or nil.
    var signal: Int32? { state.withLock { $0.signalNumber } }

    /// The exit status for the signal received (130 for SIGINT, 143 for SIGTERM), or nil.
    var exitStatus: Int32? { signal.map { 128 + $0 } }

    /// "SIGINT" or "SIGTERM", for the summary line.
    var signalName: String { signal == SIGINT ? "SIGINT" : "SIGTERM" }

    /// Runs `action` when the first signal arrives, or now if it already has.
    func onSignal(_ action: @escaping @Sendable (Int32) -> Void) {
        let already: Int32? = state.withLock { state in
            if state.signalNumber == nil { state.actions.append(action) }
            return state.signalNumber
        }
        if let already { action(already) }
    }

    /// Runs `action` on the second signal instead of ending the process at once; the command
    /// then writes what it knows and exits with `exitStatus` itself.
    func onSecondSignal(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.secondAction = action }
    }

    /// Suspends until the first signal; returns its number.
    func wait() async -> Int32 {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        onSignal { number in
            continuation.yield(number)
            continuation.finish()
        }
        for await number in stream { return number }
        return SIGTERM
    }

    private func received(_ number: Int32) {
        let (pending, second): ([@Sendable (Int32) -> Void]?, (@Sendable () -> Void)?) = state.withLock { state in
            guard state.signalNumber == nil else {
                defer { state.secondReceived = true }
                return (nil, state.secondReceived ? nil : state.secondAction)
            }
            state.signalNumber = number
            defer { state.actions.removeAll() }
            return (state.actions, nil)
        }
        guard let pending else {
            // The second signal: the operator wants out now (a third always ends it).
            guard let second else { _exit(128 + (signal ?? number)) }
            second()
            return
        }
        for action in pending { action(number) }
    }
}
