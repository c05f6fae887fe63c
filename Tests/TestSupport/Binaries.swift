import Foundation

/// Where the built `apnskit` executable is: beside the test bundle in SwiftPM's build folder.
public enum Binaries {
    public static var apnskit: String {
        if let override = ProcessInfo.processInfo.environment["APNSKIT_BIN"] { return override }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // The test binary lives in .../debug/apnskitPackageTests.xctest (a file on Linux).
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("apnskit").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return ".build/debug/apnskit"
    }

    /// Runs `apnskit` with stdin closed (not a TTY), as CI does.
    @discardableResult
    public static func apnskit(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], directory: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run(apnskit, arguments, stdin: stdin ?? Data(), environment: environment, directory: directory)
    }

    /// Runs the `openssl` CLI.
    @discardableResult
    public static func openssl(_ arguments: [String], stdin: Data? = nil, directory: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run("openssl", arguments, stdin: stdin, directory: directory)
    }
}
