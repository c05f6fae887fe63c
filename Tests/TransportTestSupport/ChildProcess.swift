// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// An external peer (nghttpd, nghttpx, openssl s_server, ...) run as a child process, its
/// stdout and stderr in one log.
///
/// Tests create one with `start`, and `defer { server.stop() }` so it is killed by PID even
/// when an expectation fails or an error is thrown; `deinit` kills it as a last resort.
package final class ChildProcess: Sendable {
    package let child: BackgroundProcess

    private init(_ child: BackgroundProcess) { self.child = child }

    package var pid: Int32 { child.pid }

    /// Starts `path arguments`, then waits (bounded, without holding a thread) until `port` on
    /// 127.0.0.1 accepts TCP connections. `stdin`: a stdin that never ends (a pipe nobody
    /// writes to keeps `openssl s_server` from reading EOF and quitting).
    package static func start(_ path: String, _ arguments: [String], waitForPort port: Int?, directory: String? = nil,
                      stdin: Bool = false) async throws -> ChildProcess {
        let child = try BackgroundProcess(path, arguments, directory: directory, combineOutput: true, keepStdinOpen: stdin)
        let started = ChildProcess(child)
        if let port, await !child.waitForPort(port, seconds: 30) {
            started.stop()
            throw ChildError("\(path) did not listen on port \(port): \(started.log)")
        }
        return started
    }

    /// Kills the process by its PID (SIGKILL); reaping happens in the background. Safe to call twice.
    package func stop() { child.kill() }

    package var log: String { child.stdout }

    /// Runs a command to completion and returns its exit status and combined output.
    package static func run(_ path: String, _ arguments: [String], directory: String? = nil) async throws -> (status: Int32, output: String) {
        let result = try await ProcessRunner.run(path, arguments, directory: directory, combineOutput: true)
        return (result.status, result.stdout)
    }

    /// `run` for what cannot await: the fixtures made once, lazily, for the whole target.
    @available(*, noasync)
    package static func runBlocking(_ path: String, _ arguments: [String], directory: String? = nil) throws -> (status: Int32, output: String) {
        let result = try ProcessRunner.run(path, arguments, directory: directory, combineOutput: true)
        return (result.status, result.stdout)
    }

    /// A port that was free a moment ago.
    package static func freePort() -> Int { freeLoopbackPort() }
}

/// The full path of a tool (nghttpd and nghttpx live in /usr/sbin).
package func tool(_ name: String) -> String { Binaries.tool(name) }

package struct ChildError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
