import Foundation

/// Runs real peers (the `openssl` CLI, the built `apnskit`) as child processes, the way a
/// user's shell would, and captures what they print.
public struct ProcessResult: Sendable, CustomStringConvertible {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let stdoutData: Data

    public var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

public enum ProcessRunner {
    /// Runs `executable` (a path, or a name looked up on PATH) to completion.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil,
                           environment: [String: String] = [:], directory: String? = nil) throws -> ProcessResult {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
        let collector = OutputCollector()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { collector.setOut(out.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        group.enter()
        DispatchQueue.global().async { collector.setErr(err.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        let (o, e) = collector.values
        return ProcessResult(status: process.terminationStatus,
                             stdout: String(decoding: o, as: UTF8.self),
                             stderr: String(decoding: e, as: UTF8.self),
                             stdoutData: o)
    }
}

private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data(), err = Data()
    func setOut(_ data: Data) { lock.lock(); out = data; lock.unlock() }
    func setErr(_ data: Data) { lock.lock(); err = data; lock.unlock() }
    var values: (Data, Data) { lock.lock(); defer { lock.unlock() }; return (out, err) }
}
