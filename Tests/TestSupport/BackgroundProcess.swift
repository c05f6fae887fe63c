import Foundation

/// A long-running child (a server) that tests start, talk to, and always stop: `deinit` sends
/// SIGKILL if the test did not stop it, so a failing test never leaves a server behind.
public final class BackgroundProcess: @unchecked Sendable {
    public let process = Process()
    private let outputPath: String
    private let errorPath: String

    /// `environment` is added to this process's own (as `ProcessRunner.run` does).
    public init(_ executable: String, _ arguments: [String], directory: String? = nil, environment: [String: String] = [:]) throws {
        let stamp = UUID().uuidString
        outputPath = NSTemporaryDirectory() + "/apnskit-bg-\(stamp).out"
        errorPath = NSTemporaryDirectory() + "/apnskit-bg-\(stamp).err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: outputPath)
        try? FileManager.default.removeItem(atPath: errorPath)
    }

    public var stdout: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits (bounded) until `path` exists and is non-empty, or the process died.
    public func waitForFile(_ path: String, seconds: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber, size.intValue > 0 { return true }
            if !process.isRunning { return false }
            usleep(50_000)
        }
        return false
    }

    /// Waits (bounded) until the child's standard output has a line containing `text`, and
    /// returns that line; nil when the process died first or the wait ran out.
    public func waitForOutputLine(containing text: String, seconds: Double = 60) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let line = stdout.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if !process.isRunning { return nil }
            usleep(50_000)
        }
        return nil
    }

    /// Sends `signal` and waits for the exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
