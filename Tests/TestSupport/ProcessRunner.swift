// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Runs real peers (the `openssl` CLI, the built `apnskit`, curl, python3) as child processes,
/// the way a user's shell would, and captures what they print.
public struct ProcessResult: Sendable, CustomStringConvertible {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let stdoutData: Data

    /// Everything the child printed: stdout then stderr; for a child run with `combineOutput`,
    /// its one interleaved stream (stderr then holds only a deadline note, if any).
    public var output: String { stdout + stderr }

    public var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// The one way tests run a child to completion.
///
/// Why async: Swift Testing runs tests on the cooperative pool, which has one thread per core
/// (two here). A test that blocked a pool thread until its child exited (Foundation's
/// `waitUntilExit`, a `usleep` loop) would starve the in-process servers and clients of the
/// tests running beside it, so the suites had to run one test at a time. Here the child's exit
/// is reported by Foundation's termination handler (on a dispatch queue, not the pool) and the
/// test awaits it. Output goes to files rather than pipes, so nothing has to drain them while
/// the child runs and a chatty child never blocks on a full pipe.
public enum ProcessRunner {
    /// Runs `executable` (a path, or a name looked up on PATH) to completion. `stdin` is the
    /// child's whole input (none: an empty stdin, not a TTY); `environment` is added to this
    /// process's; `combineOutput` sends stderr into stdout (one interleaved stream).
    ///
    /// A child still running after `deadline` is killed (SIGKILL) and its result says so in
    /// stderr: a hung child fails its test with a sentence instead of holding the whole run
    /// until CI's time limit (its status is then the signal's number, 9, as for any child a
    /// signal ended). The default is far beyond any child's expected time, even on a loaded
    /// machine.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil,
                           environment: [String: String] = [:], directory: String? = nil,
                           combineOutput: Bool = false, deadline: Duration = .seconds(600)) async throws -> ProcessResult {
        let child = try BackgroundProcess(executable, arguments, stdin: stdin ?? Data(), environment: environment,
                                          directory: directory, combineOutput: combineOutput)
        return child.result(status: await child.exited(within: deadline).status)
    }

    /// The blocking form, for what cannot await: lazily made shared fixtures (`static let`),
    /// and tests written before the async form. It holds its thread until the child exits, so
    /// async code must use the async form (which the compiler picks there).
    @available(*, noasync, message: "use `try await ProcessRunner.run(...)`: a blocking wait starves the cooperative pool")
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil,
                           environment: [String: String] = [:], directory: String? = nil,
                           combineOutput: Bool = false) throws -> ProcessResult {
        let child = try BackgroundProcess(executable, arguments, stdin: stdin ?? Data(), environment: environment,
                                          directory: directory, combineOutput: combineOutput)
        child.process.waitUntilExit()
        return child.result(status: child.process.terminationStatus)
    }
}
