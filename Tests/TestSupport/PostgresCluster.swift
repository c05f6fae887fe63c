// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster of Debian's `postgresql` package (scripts/setup.sh installs
/// it): `initdb` and `pg_ctl` in a temporary folder, listening only on a Unix socket in that
/// folder (no port to collide with another test's), fsync off. The server refuses to run as
/// root, so as root (CI, these machines) every server command runs as `nobody` through
/// util-linux's `setpriv`. Stopped (immediately) when the value goes away.
public final class PostgresCluster: @unchecked Sendable {
    public let folder: TemporaryDirectory
    public var dataFolder: String { folder.file("data") }
    /// The socket's folder: `psql -h` and a URL's `?host=` take it.
    public var socketFolder: String { folder.file("socket") }
    public static let port = 5432

    /// The newest `bin` folder of /usr/lib/postgresql/<version>.
    public static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        return versions.last.map { "\(root)/\($0)/bin" }
    }

    public static var isInstalled: Bool { binaries.map { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") } ?? false }

    private init(folder: TemporaryDirectory) { self.folder = folder }

    /// initdb (superuser `postgres`, trust authentication on the socket) and start.
    public static func start(settings: [String] = []) async throws -> PostgresCluster {
        let folder = try TemporaryDirectory("apnskit-pg")
        let cluster = PostgresCluster(folder: folder)
        chmod(folder.path, 0o755)
        for sub in ["data", "socket"] {
            try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: false)
            if getuid() == 0 { chown(folder.file(sub), 65_534, 65_534) }
        }
        let initdb = try await cluster.server("initdb", ["-D", cluster.dataFolder, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync",
                                                           "--no-instructions"])
        guard initdb.status == 0 else { throw ClusterError("initdb failed: \(initdb)") }
        // In the cluster's own configuration, so that `pg_ctl restart` keeps it.
        let lines = ["listen_addresses = ''", "unix_socket_directories = '\(cluster.socketFolder)'", "port = \(port)", "fsync = off",
                     "synchronous_commit = off", "full_page_writes = off", "max_connections = 200"] + settings
        try lines.joined(separator: "\n").appendLine(to: cluster.dataFolder + "/postgresql.auto.conf")
        try await cluster.control("start")
        _ = exitHandler
        running.withLock { _ = $0.insert(cluster.dataFolder) }
        return cluster
    }

    deinit {
        _ = Self.running.withLock { $0.remove(dataFolder) }
        Self.stop(dataFolder: dataFolder)
    }

    /// Synchronous: the folder is removed right after.
    private static func stop(dataFolder: String) {
        let child = try? BackgroundProcess(serverCommand("pg_ctl").executable,
                                           serverCommand("pg_ctl").prefix + ["-D", dataFolder, "-m", "immediate", "-w", "stop"])
        child?.process.waitUntilExit()
    }

    /// Clusters still running: a shared one lives as long as the test process, and no deinit
    /// runs at exit, so the first start registers an exit handler that stops whatever is left
    /// (a server outliving its tests was seen after every run).
    private static let running = Mutex<Set<String>>([])
    private static let exitHandler: Void = {
        atexit { for folder in PostgresCluster.running.withLock({ $0 }) { PostgresCluster.stop(dataFolder: folder) } }
    }()

    /// `pg_ctl start|stop|restart`, waiting for it to finish (`-m fast` for stop and restart:
    /// open connections are ended, as at a failover or a restart by an operator).
    public func control(_ action: String) async throws {
        var arguments = ["-D", dataFolder, "-w", "-t", "60", "-l", folder.file("socket/server.log")]
        if action != "start" { arguments += ["-m", "fast"] }
        let result = try await server("pg_ctl", arguments + [action])
        guard result.status == 0 else { throw ClusterError("pg_ctl \(action) failed: \(result)\n\(log)") }
    }

    public var log: String { (try? String(contentsOfFile: folder.file("socket/server.log"), encoding: .utf8)) ?? "" }

    /// The URL apnskit takes (`--postgres`) for `database`.
    public func url(_ database: String = "postgres") -> String { "postgres://postgres@localhost/\(database)?host=\(socketFolder)" }

    /// A new database (each test its own, in a shared cluster).
    public func createDatabase(_ name: String) async throws {
        _ = try await psql("CREATE DATABASE \(name)", database: "postgres")
    }

    /// Runs `sql` with psql (unaligned, tuples only, stop at the first error); its output.
    @discardableResult
    public func psql(_ sql: String, database: String) async throws -> String {
        let result = try await ProcessRunner.run(Self.binaries.map { "\($0)/psql" } ?? "psql",
                                                 ["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", socketFolder, "-p", "\(Self.port)", "-U", "postgres",
                                                  "-d", database, "-f", "-"], stdin: Data(sql.utf8))
        guard result.status == 0 else { throw ClusterError("psql failed: \(result)") }
        return result.stdout
    }

    private func server(_ tool: String, _ arguments: [String]) async throws -> ProcessResult {
        let command = Self.serverCommand(tool)
        return try await ProcessRunner.run(command.executable, command.prefix + arguments, directory: folder.path)
    }

    /// As root, `setpriv` runs the tool as nobody; otherwise the tool itself.
    private static func serverCommand(_ tool: String) -> (executable: String, prefix: [String]) {
        let path = "\(binaries ?? "/usr/lib/postgresql/15/bin")/\(tool)"
        guard getuid() == 0 else { return (path, []) }
        return (Binaries.tool("setpriv"), ["--reuid=65534", "--regid=65534", "--clear-groups", path])
    }

    public struct ClusterError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

private extension String {
    func appendLine(to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(("\n" + self + "\n").utf8))
    }
}
