// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Where the programs tests run are: the built `apnskit` and the system's tools.
public enum Binaries {
    /// The built `apnskit`: beside the test bundle in SwiftPM's build folder (the test binary
    /// is .../debug/apnskitPackageTests.xctest), else .build/debug under the package root.
    /// APNSKIT_BIN runs the suites against another build (an older one, to see a test fail).
    public static var apnskit: String {
        if let override = ProcessInfo.processInfo.environment["APNSKIT_BIN"] { return override }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("apnskit").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return packageRoot + "/.build/debug/apnskit"
    }

    /// The package's root folder (for its scripts and docs).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The full path of a system tool: nghttpd and nghttpx live in /usr/sbin, which is not
    /// always on PATH.
    public static func tool(_ name: String) -> String {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        for directory in directories where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
            return directory + "/" + name
        }
        return "/usr/bin/" + name
    }

    /// Runs `apnskit` with stdin closed (not a TTY), as CI does.
    @discardableResult
    public static func apnskit(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
                               directory: String? = nil) async throws -> ProcessResult {
        try await ProcessRunner.run(apnskit, arguments, stdin: stdin, environment: environment, directory: directory)
    }

    /// Runs the `openssl` CLI.
    @discardableResult
    public static func openssl(_ arguments: [String], stdin: Data? = nil, directory: String? = nil) async throws -> ProcessResult {
        try await ProcessRunner.run("openssl", arguments, stdin: stdin, directory: directory)
    }

    /// The blocking `apnskit(...)`, for tests written before the async one.
    @available(*, noasync, message: "use `try await Binaries.apnskit(...)`")
    @discardableResult
    public static func apnskit(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
                               directory: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run(apnskit, arguments, stdin: stdin, environment: environment, directory: directory)
    }

    /// The blocking `openssl(...)`, for what cannot await (lazily made shared fixtures).
    @available(*, noasync, message: "use `try await Binaries.openssl(...)`")
    @discardableResult
    public static func openssl(_ arguments: [String], stdin: Data? = nil, directory: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run("openssl", arguments, stdin: stdin, directory: directory)
    }
}
