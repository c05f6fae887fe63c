import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An external peer (nghttpd, nghttpx, openssl s_server, ...) run as a child process.
///
/// Tests create one with `start`, and `defer { server.stop() }` so it is killed by PID even
/// when an expectation fails or an error is thrown; `deinit` kills it as a last resort.
final class ChildProcess: @unchecked Sendable {
    let process: Process
    let logPath: String
    private let lock = NSLock()
    private var stopped = false

    private init(process: Process, logPath: String) {
        self.process = process
        self.logPath = logPath
    }

    deinit { stop() }

    var pid: Int32 { process.processIdentifier }

    /// Starts `path arguments` with output to a log file, then waits (up to 10 s) until
    /// `port` on 127.0.0.1 accepts TCP connections.
    static func start(_ path: String, _ arguments: [String], waitForPort port: Int?, directory: String? = nil,
                      stdin: Bool = false) throws -> ChildProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let logPath = NSTemporaryDirectory() + "apnskit-child-\(UUID().uuidString.prefix(8)).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        // A pipe we never write to keeps `openssl s_server` from reading EOF and quitting.
        process.standardInput = stdin ? Pipe() : FileHandle.nullDevice
        try process.run()
        let child = ChildProcess(process: process, logPath: logPath)
        if let port {
            let deadline = Date().addingTimeInterval(10)
            while !Self.accepts(port: port) {
                guard process.isRunning, Date() < deadline else {
                    child.stop()
                    throw ChildError("\(path) did not listen on port \(port): \(child.log)")
                }
                usleep(50_000)
            }
        }
        return child
    }

    /// Kills the process by its PID and reaps it. Safe to call twice.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Runs a command to completion and returns its exit status and combined output.
    static func run(_ path: String, _ arguments: [String], directory: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `run` on a thread of its own: a blocking wait on the cooperative pool (two threads on a
    /// two-core machine) would starve the server tasks the child is talking to.
    static func run(_ path: String, _ arguments: [String], directory: String? = nil) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try run(path, arguments, directory: directory) as (status: Int32, output: String) })
            }
        }
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return rc == 0
    }

    /// A port that was free a moment ago (bind to 0, read it back, close).
    static func freePort() -> Int {
        let (fd, port) = bindLoopbackTCP()
        close(fd)
        return port
    }
}

/// The full path of a tool: nghttpd and nghttpx live in /usr/sbin, the rest in /usr/bin.
func tool(_ name: String) -> String {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        + ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
    for directory in directories where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
        return directory + "/" + name
    }
    return "/usr/bin/" + name
}

struct ChildError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
