// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

extension BackgroundProcess {
    /// `apnskit mock serve ARGUMENTS --ports-file PORTS` in `directory`: the one way tests start
    /// the mock gateway as a child. Every port it opens is one the kernel picked (the caller
    /// passes `--port 0` and the like); the mock writes them to `portsFile` (relative to
    /// `directory`, or absolute) once it listens, and this returns then, with the file read.
    /// `ulimit` (e.g. `"-n 64"`) starts it under that shell limit. Throws, with the mock's
    /// stderr, when it exits or the wait runs out first (the process is then killed).
    public static func mockServe(_ arguments: [String], portsFile: String = "ports-\(UUID().uuidString).json", directory: String? = nil,
                                 ulimit: String? = nil, seconds: Double = 60) async throws -> (server: BackgroundProcess, ports: [String: Any]) {
        let serve = ["mock", "serve"] + arguments + ["--ports-file", portsFile]
        let server = try ulimit.map {
            try BackgroundProcess("/bin/sh", ["-c", "ulimit \($0) && exec \"$0\" \"$@\"", Binaries.apnskit] + serve, directory: directory)
        } ?? BackgroundProcess(Binaries.apnskit, serve, directory: directory)
        let path = portsFile.hasPrefix("/") ? portsFile : (directory ?? FileManager.default.currentDirectoryPath) + "/" + portsFile
        guard await server.waitForFile(path, seconds: seconds),
              let data = FileManager.default.contents(atPath: path),
              let ports = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            server.kill()
            throw ServerDidNotStart(description: "apnskit mock serve did not start: \(server.stderr)")
        }
        return (server, ports)
    }
}
