// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// `apnskit mock serve` as a child process on a free port, in a `CLIWorkspace` folder (its
/// mock CA): the network bounds are about what happens to the gateway process, its memory,
/// its file descriptors and its log, so it runs apart from the test process.
final class MockServeProcess: @unchecked Sendable {
    let server: BackgroundProcess
    let port: Int
    /// The legacy binary port, when started with `legacy: true`.
    let legacyPort: Int?
    let caFile: String
    /// Peak resident memory (VmHWM, KiB) once it was up: what bounds are measured from.
    let baselineRSS: Int

    /// `ulimit` (e.g. `"-n 64"`) starts it under that shell limit.
    init(in w: CLIWorkspace, _ arguments: [String] = [], ulimit: String? = nil, legacy: Bool = false) async throws {
        let serve = ["--ca", "ca", "--port", "0"] + (legacy ? ["--legacy-port", "0"] : ["--no-legacy"]) + ["--no-feedback"] + arguments
        let (server, ports) = try await BackgroundProcess.mockServe(serve, directory: w.dir.path, ulimit: ulimit)
        guard let port = ports["provider"] as? Int else {
            server.kill()
            throw MockServeError(message: "the ports file has no provider port: \(ports)")
        }
        self.server = server
        self.port = port
        legacyPort = ports["legacy"] as? Int
        caFile = w.dir.file("ca/ca-bundle.pem")
        baselineRSS = Self.peakRSS(of: server.pid)
    }

    struct MockServeError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    var isRunning: Bool { server.isRunning }
    var stderr: String { server.stderr }

    /// Peak resident memory so far (VmHWM), in KiB.
    var peakRSS: Int { Self.peakRSS(of: server.pid) }

    /// How much the peak grew since start, in KiB (-1 if unknown).
    var peakGrowth: Int { baselineRSS > 0 && peakRSS > 0 ? peakRSS - baselineRSS : -1 }

    static func peakRSS(of pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    /// Waits (bounded) until the log contains `text`; the wait is a safety net, not a measure.
    func waitForLog(_ text: String, seconds: Double = 30) async -> Bool {
        await server.waitForStderr(text, seconds: seconds) || stderr.contains(text)
    }

    /// `apnskit push` of one notification with the workspace's certificate (`apns.pem`).
    func push(_ w: CLIWorkspace) async throws -> ProcessResult {
        try await w.run(["push", "apns.pem", "--gateway", "127.0.0.1:\(port)", "--ca-file", "ca/ca-bundle.pem",
                   "--token", String(repeating: "ab", count: 32), "--alert", "still serving"])
    }

    /// SIGTERM; the exit status.
    func stop() async -> Int32 { await server.stop() }

    /// SIGKILL without waiting (for `defer`).
    func kill() { server.kill() }
}
