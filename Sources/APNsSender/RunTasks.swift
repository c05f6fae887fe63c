// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Synchronized

/// The tasks a sender's runs start for the rare things that wait (a connect, a back-off, the
/// hold after a cancellation), kept so that `BatchSender.close` can cancel them and wait for
/// them: once `close()` returns, nothing of the client runs any more, and a process may exit
/// at once (issue 32). A batch that ended still leaves its slots' connects here until they end.
final class RunTasks: Sendable {
    private struct State {
        var next = 0
        var running: [Int: Task<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// Runs `work` in a task of its own. Also after `close()`: a batch started after it still
    /// needs its connect task to learn from the pool that the client is closed.
    func spawn(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let id = state.next
            state.next += 1
            // Inserted before the lock is released, so the task's own removal comes after it.
            state.running[id] = Task { [self] in
                await work()
                _ = self.state.withLock { $0.running.removeValue(forKey: id) }
            }
        }
    }

    /// Tasks still running (tests).
    var count: Int { state.withLock { $0.running.count } }

    /// Cancels the running tasks and returns when none is left (also those they started on
    /// their way out).
    func cancelAndWait() async {
        while true {
            let running = state.withLock { Array($0.running.values) }
            if running.isEmpty { return }
            for task in running { task.cancel() }
            for task in running { await task.value }
        }
    }
}
