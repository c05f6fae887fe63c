// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import Foundation
import PostgresNIO

/// A `PostgresClient` configuration from a libpq-style URL, for programs (the CLI) that take
/// one: `postgres://user:password@host:port/database?sslmode=require`. A `host` parameter
/// that is a folder (`?host=/run/postgresql`) connects through the server's Unix socket there.
/// `sslmode` is `disable`, `prefer` (the default, as libpq's) or `require`; a server that
/// offers TLS is verified (chain and host name) in both of the latter.
public enum APNsOutboxDatabase {
    public static func configuration(url text: String) throws -> PostgresClient.Configuration {
        guard let url = URLComponents(string: text), let scheme = url.scheme, scheme == "postgres" || scheme == "postgresql" else {
            throw APNsOutboxError.invalidURL("not a postgres:// URL")
        }
        let parameters = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let user = url.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        let password = url.password.flatMap { $0.removingPercentEncoding }
        var database = String(url.path.drop(while: { $0 == "/" }))
        database = database.removingPercentEncoding ?? database
        var port = 5432
        if let given = url.port {
            guard (1...65_535).contains(given) else { throw APNsOutboxError.invalidURL("the port \(given) is not between 1 and 65535") }
            port = given
        }
        let tls: PostgresClient.Configuration.TLS
        switch parameters["sslmode"] ?? "prefer" {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        case let other: throw APNsOutboxError.invalidURL("sslmode=\(other) is not one of disable, prefer, require, verify-full")
        }
        var configuration: PostgresClient.Configuration
        if let socketFolder = parameters["host"], socketFolder.hasPrefix("/") {
            configuration = PostgresClient.Configuration(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password,
                                                         database: database.isEmpty ? user : database)
        } else {
            let host = url.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
            configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password,
                                                         database: database.isEmpty ? user : database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }
}
#endif

#if Outbox
extension APNsOutboxDatabase {
    /// Runs `body` with a store on a new `PostgresClient` for `url`, running for as long as
    /// `body` does (programs that own no client of their own: the CLI, tests).
    /// `connectDeadline`: how long the first statement may wait for a connection (postgres-nio's
    /// pool keeps trying an unreachable server for a minute or more); past it, `unreachable`.
    public static func withStore<Result: Sendable>(url: String, maximumConnections: Int = 4, logger: Logger? = nil,
                                                   connectDeadline: Duration? = nil,
                                                   _ body: @escaping @Sendable (APNsOutboxStore) async throws -> Result) async throws -> Result {
        var configuration = try configuration(url: url)
        configuration.options.maximumConnections = max(1, maximumConnections)
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            let store = APNsOutboxStore(client: client, logger: logger)
            if let connectDeadline { try await reach(store, within: connectDeadline) }
            return try await body(store)
        }
    }

    /// One cheap statement, or `APNsOutboxError.unreachable` once `deadline` has passed.
    static func reach(_ store: APNsOutboxStore, within deadline: Duration) async throws {
        do {
            _ = try await withDatabaseDeadline(deadline) { try await store.schemaVersion() }
        } catch is DatabaseCallTimedOut {
            throw APNsOutboxError.unreachable(seconds: Int(deadline.components.seconds))
        }
    }

    /// `host:port/database` (or the socket's path) of `url`, without user or password: for
    /// messages.
    public static func endpointDescription(url text: String) -> String {
        guard let url = URLComponents(string: text) else { return "the URL given" }
        let parameters = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let host = parameters["host"] ?? url.host ?? "localhost"
        return "\(host):\(url.port ?? 5432)\(url.path)"
    }

    /// One clause for an error postgres-nio threw: the server's message when it sent one, else
    /// what failed (postgres-nio's own description hides details on purpose).
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
#endif
