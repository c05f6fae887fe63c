// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A one-time event tasks can wait for: `open()` once, and every `wait()` returns, those
/// suspended now and those that come later (a connection gone for good, a producer task
/// ended). Waiters are resumed outside the lock, after the latch is marked open.
package final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    package init() {}

    package var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the latch and resumes every waiter; later calls do nothing.
    package func open() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is open (at once if it is).
    package func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
