// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import CTestSpawn
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child started with `posix_spawn`, reaped by a thread of its own: what `BackgroundProcess`
/// runs on instead of Foundation's `Process`. This toolchain's `Process.run()` on Linux reads
/// 256 bytes past the end of glibc's directory buffer while it lists `/proc/self/fd`
/// (swift-corelibs-foundation PR #5472, not in Swift 6.3.1): with the test process holding
/// over a thousand descriptors (servers and connections of the tests running in parallel) that
/// crashed the whole test run now and then (twice in CI logs). Here the child's descriptors
/// above 2 are closed by `posix_spawn_file_actions_addclosefrom_np`, which lists nothing.
public final class SpawnedProcess: @unchecked Sendable {
    public enum TerminationReason: Sendable { case exit, uncaughtSignal }

    public let processIdentifier: Int32
    private let condition = NSCondition()
    private var ended: (status: Int32, reason: TerminationReason)?
    private var onExit: (@Sendable (Int32, TerminationReason) -> Void)?

    /// Starts `executable` (a path, or a name looked up on PATH). Standard input from
    /// `stdinPath` (nil: /dev/null) or the descriptor `stdinDescriptor`; standard output and
    /// error appended to the given files (the same file for both when they are equal).
    public init(executable: String, arguments: [String], environment: [String: String]?, directory: String?,
                stdinPath: String?, stdinDescriptor: Int32?, stdoutPath: String, stderrPath: String,
                onExit: @escaping @Sendable (Int32, TerminationReason) -> Void) throws {
        self.onExit = onExit
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdinDescriptor {
            posix_spawn_file_actions_adddup2(&actions, stdinDescriptor, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, stdinPath ?? "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        if stderrPath == stdoutPath {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        }
        if let directory { test_spawn_addchdir(&actions, directory) }
        test_spawn_addclosefrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with default signal handling and an empty mask, whatever this
        // process blocks or ignores (SIGPIPE is ignored by the event loop's threads).
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = variables.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = executable.contains("/")
            ? posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            : posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "Cannot start \(executable): \(String(cString: strerror(rc)))"])
        }
        processIdentifier = pid
        Thread.detachNewThread { [self] in reap() }
    }

    private func reap() {
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) < 0 && errno == EINTR {}
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS, spelled out (they are C macros).
        let signal = status & 0x7f
        let result: (Int32, TerminationReason) = signal != 0 && signal != 0x7f ? (signal, .uncaughtSignal) : ((status >> 8) & 0xff, .exit)
        condition.lock()
        ended = result
        let handler = onExit
        onExit = nil
        condition.broadcast()
        condition.unlock()
        handler?(result.0, result.1)
    }

    public var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended == nil
    }

    /// Blocks until the child has been reaped.
    public func waitUntilExit() {
        condition.lock()
        while ended == nil { condition.wait() }
        condition.unlock()
    }

    /// The exit status, or the signal that ended it (after the child ended).
    public var terminationStatus: Int32 {
        waitUntilExit()
        condition.lock()
        defer { condition.unlock() }
        return ended!.status
    }

    public var terminationReason: TerminationReason {
        waitUntilExit()
        condition.lock()
        defer { condition.unlock() }
        return ended!.reason
    }
}
