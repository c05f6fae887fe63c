// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import CTestSpawn
import Foundation
import Synchronization

/// A child process with its stdout and stderr in files: a server that tests start, talk to and
/// stop, or (through `ProcessRunner.run`) a command run to completion. `deinit` sends SIGKILL if
/// it is still running, so a failing test never leaves a server behind.
public final class BackgroundProcess: @unchecked Sendable {
    /// The child (`SpawnedProcess`: posix_spawn, not Foundation's `Process`, which crashes now
    /// and then in this toolchain when the test process holds many descriptors).
    public let process: SpawnedProcess
    private let outputPath: String
    private let errorPath: String
    private let inputPath: String?
    private let exit = ExitSignal()
    /// Set when `killAfterDeadline` ended the child.
    private let deadlineNote = Mutex("")

    /// The write end of the pipe on a child's stdin, held open so it never sees its end
    /// (`keepStdinOpen`); closed in deinit.
    private let endlessInput: Int32?
    /// The port a server started by `serving` listens on, held for the process's life.
    private let reservation: ReservedPort?
    /// Whether stderr goes into stdout (one file for both).
    private let combined: Bool

    /// Starts `executable` (a path, or a name looked up on PATH) with stdin `stdin` (nil: an
    /// empty stdin), this process's environment plus `environment`, in `directory`.
    /// `combineOutput` sends stderr into stdout; `keepStdinOpen` gives it a stdin that never
    /// ends (`openssl s_server` quits at the end of its stdin).
    public convenience init(_ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
                            directory: String? = nil, combineOutput: Bool = false, keepStdinOpen: Bool = false) throws {
        try self.init(executable, arguments, stdin: stdin, environment: environment, directory: directory, combineOutput: combineOutput,
                      keepStdinOpen: keepStdinOpen, reservation: nil)
    }

    private init(_ executable: String, _ arguments: [String], stdin: Data?, environment: [String: String],
                 directory: String?, combineOutput: Bool, keepStdinOpen: Bool, reservation: ReservedPort?) throws {
        self.reservation = reservation
        combined = combineOutput
        let stamp = UUID().uuidString
        outputPath = NSTemporaryDirectory() + "/apnskit-bg-\(stamp).out"
        errorPath = combineOutput ? outputPath : NSTemporaryDirectory() + "/apnskit-bg-\(stamp).err"
        inputPath = stdin.map { _ in NSTemporaryDirectory() + "/apnskit-bg-\(stamp).in" }
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        if let inputPath, let stdin { _ = FileManager.default.createFile(atPath: inputPath, contents: stdin) }
        var pipeEnds: [Int32] = [-1, -1]
        if keepStdinOpen, test_pipe_cloexec(&pipeEnds) == 0 {
            endlessInput = pipeEnds[1]
        } else {
            endlessInput = nil
        }
        // Called on the reaping thread when the child has ended: what `exited()` awaits.
        let exit = self.exit
        process = try SpawnedProcess(
            executable: executable, arguments: arguments,
            environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
            directory: directory, stdinPath: inputPath, stdinDescriptor: endlessInput == nil ? nil : pipeEnds[0],
            stdoutPath: outputPath, stderrPath: errorPath,
            onExit: { status, reason in exit.finish(Termination(status: status, signaled: reason == .uncaughtSignal)) })
        if endlessInput != nil { close(pipeEnds[0]) }
    }

    deinit {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        if let endlessInput { close(endlessInput) }
        for path in Set([outputPath, errorPath] + (inputPath.map { [$0] } ?? [])) { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Starts a server that takes its port on its command line (nghttpd, nghttpx,
    /// `openssl s_server`, tinyproxy, a test's python peer): reserves a loopback port
    /// (`ReservedPort`), starts `executable` with `arguments(port)`, its output in one log
    /// (`stdout`), and returns once it accepts connections on that port (`port`). The
    /// reservation lives as long as the returned process, so no other test can take the port
    /// meanwhile. `keepStdinOpen`: a stdin that never ends (`openssl s_server` quits at its end).
    public static func serving(_ executable: String, directory: String? = nil, environment: [String: String] = [:], keepStdinOpen: Bool = false,
                               seconds: Double = 30, _ arguments: (_ port: Int) -> [String]) async throws -> BackgroundProcess {
        let reservation = ReservedPort()
        let server = try BackgroundProcess(executable, arguments(reservation.port), stdin: nil, environment: environment, directory: directory,
                                           combineOutput: true, keepStdinOpen: keepStdinOpen, reservation: reservation)
        guard await server.waitForPort(reservation.port, seconds: seconds) else {
            server.kill()
            throw ServerDidNotStart(description: "\(executable) did not listen on port \(reservation.port): \(server.stdout)")
        }
        return server
    }

    /// What `serving` throws when its server never listened, with the server's output.
    public struct ServerDidNotStart: Error, CustomStringConvertible {
        public let description: String
    }

    /// The port of a server started by `serving` (0 for any other process).
    public var port: Int { reservation?.port ?? 0 }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    public var stdout: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    public var stdoutData: Data { FileManager.default.contents(atPath: outputPath) ?? Data() }
    public var stderr: String { ((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "") + deadlineNote.withLock { $0 } }

    /// How the child ended: its exit status, or the signal that ended it.
    public struct Termination: Sendable, Equatable {
        /// The exit status, or the signal number when `signaled`.
        public let status: Int32
        public let signaled: Bool
    }

    /// Waits (bounded, without holding a thread) until the child's standard output has a line
    /// containing `text`, and returns that line; nil when the process died first or the wait
    /// ran out.
    public func waitForStdoutLine(containing text: String, seconds: Double = 60) async -> String? {
        await Wait.value(seconds: seconds, while: { self.process.isRunning }) {
            self.stdout.split(separator: "\n").first { $0.contains(text) }.map(String.init)
        }
    }

    /// Waits, without holding a thread, until the child has exited. A child still running
    /// `within` later is killed (SIGKILL, noted in `stderr`): a hung child fails its test
    /// instead of holding the whole run; the default is far beyond any child's expected time.
    public func exited(within limit: Duration = .seconds(600)) async -> Termination {
        let watchdog = Task {
            try await Task.sleep(for: limit)
            self.killAfterDeadline(limit)
        }
        defer { watchdog.cancel() }
        return await exit.wait()
    }

    /// Sends `signal` and waits (without holding a thread) for the exit status. A child still
    /// running `grace` later is killed (status 9, and a note in `stderr`): a child that ignores
    /// the signal fails its test instead of hanging the run.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, grace: Duration = .seconds(180)) async -> Int32 {
        if process.isRunning { Foundation.kill(process.processIdentifier, signal) }
        return await exited(within: grace).status
    }

    /// Sends SIGKILL and returns at once (for `defer`, which cannot await); reaping happens
    /// in the background.
    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// Kills a child that outran its deadline and notes it at the end of `stderr`.
    func killAfterDeadline(_ deadline: Duration) {
        guard process.isRunning else { return }
        deadlineNote.withLock { $0 = "\n[test support: still running after \(deadline), killed with SIGKILL]" }
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// The blocking `stop`, for tests written before the async one.
    @available(*, noasync, message: "use `await stop()` (or `kill()` in a defer)")
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { Foundation.kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits (bounded, polling without holding a thread) until `path` exists and is non-empty:
    /// a server's ports file, a client's first output. False if the child exited first.
    public func waitForFile(_ path: String, seconds: Double = 30) async -> Bool {
        await Wait.until(seconds: seconds, while: { self.process.isRunning }) { fileHasBytes(path) }
    }

    /// Waits (bounded) until stderr contains `text`; false if the child exited without it.
    public func waitForStderr(_ text: String, seconds: Double = 30) async -> Bool {
        await Wait.until(seconds: seconds, while: { self.process.isRunning }) { self.stderr.contains(text) }
    }

    /// Waits (bounded) until 127.0.0.1:`port` accepts TCP connections (servers that have no
    /// ports file: nghttpd, openssl s_server); false if the child exited first.
    public func waitForPort(_ port: Int, seconds: Double = 30) async -> Bool {
        await Wait.until(seconds: seconds, while: { self.process.isRunning }) { loopbackAccepts(port: port) }
    }

    /// The result of a child that has ended. With `combineOutput` both streams are in stdout,
    /// so stderr holds only the deadline note (if any), never the same text twice.
    func result(status: Int32) -> ProcessResult {
        let out = stdoutData
        return ProcessResult(status: status, stdout: String(decoding: out, as: UTF8.self),
                             stderr: combined ? deadlineNote.withLock { $0 } : stderr, stdoutData: out)
    }
}

/// Whether `path` exists and holds at least one byte.
public func fileHasBytes(_ path: String) -> Bool {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0 > 0
}

/// The child's termination, delivered once by the termination handler to any number of waiters.
private final class ExitSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var termination: BackgroundProcess.Termination?
    private var waiters: [CheckedContinuation<BackgroundProcess.Termination, Never>] = []

    func finish(_ value: BackgroundProcess.Termination) {
        lock.lock()
        termination = value
        let resumed = waiters
        waiters = []
        lock.unlock()
        for waiter in resumed { waiter.resume(returning: value) }
    }

    func wait() async -> BackgroundProcess.Termination {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let termination {
                lock.unlock()
                continuation.resume(returning: termination)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}
