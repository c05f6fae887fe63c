import Foundation

/// A long-running child (a server) that tests start, talk to, and always stop: `deinit` sends
/// SIGKILL if the test did not stop it, so a failing test never leaves a server behind.
public final class BackgroundProcess: @unchecked Sendable {
    public let process = Process()
    private let outputPath: String
    private let errorPath: String

    public init(_ executable: String, _ arguments: [String], directory: String? = nil) throws {
        let stamp = UUID().uuidString
        outputPath = NSTemporaryDirectory() + "/apnskit-bg-\(stamp).out"
        errorPath = NSTemporaryDirectory() + "/apnskit-bg-\(stamp).err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
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

    /// Sends `signal` and waits for the exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
