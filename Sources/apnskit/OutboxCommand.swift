// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import APNsOutbox
import ArgumentParser
import Foundation

/// `apnskit outbox`: a fleet of workers draining a PostgreSQL outbox table (docs/outbox.md).
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Send notifications from a PostgreSQL outbox table, with any number of workers.",
        discussion: """
        The app inserts rows into the apns_outbox table (in its own transactions if it likes); \
        `outbox run` workers claim them in batches, send them and write each row's result back into it. \
        Every row ends in exactly one final state (delivered, rejected or failed), also when a worker is \
        killed: its rows go to another worker once its lease runs out, flagged possibly_duplicated. \
        --postgres takes a postgres:// URL (default: $DATABASE_URL). docs/outbox.md has the table and the guarantees.
        """,
        subcommands: [OutboxInit.self, OutboxEnqueue.self, OutboxRun.self, OutboxStatusCommand.self]
    )
}

/// `--postgres URL`, or `DATABASE_URL`: the database every outbox command works on.
struct PostgresOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The database: postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require] (a ?host=/folder connects through the Unix socket there). Default: $DATABASE_URL.",
                               valueName: "URL"))
    var postgres: String?

    var url: String? { postgres ?? ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 } }

    func validate() throws {
        guard let url else { throw ValidationError("Give the database with --postgres URL (or set DATABASE_URL).") }
        do { _ = try APNsOutboxDatabase.configuration(url: url) } catch {
            throw ValidationError("--postgres: \(error); write postgres://user@host:port/database.")
        }
    }

    /// Runs `body` with a store on a running `PostgresClient`, closed after it. `connections`
    /// bounds the pool. Errors reaching the database become one sentence with exit 4.
    func withStore<Result: Sendable>(connections: Int = 4, _ body: @escaping @Sendable (APNsOutboxStore) async throws -> Result) async throws -> Result {
        let url = self.url ?? ""
        do {
            return try await APNsOutboxDatabase.withStore(url: url, maximumConnections: connections, connectDeadline: .seconds(15), body)
        } catch APNsOutboxError.unreachable(let seconds) {
            throw CommandFailure(message: "PostgreSQL at \(APNsOutboxDatabase.endpointDescription(url: url)): no connection within \(seconds) s. Check --postgres and that the server runs.",
                                 status: ExitStatus.network)
        } catch let error as APNsOutboxError {
            throw CommandFailure(message: "\(Self.sentence(error)).", status: ExitStatus.input)
        } catch let error as CommandFailure {
            throw error
        } catch let error as ExitCode {
            throw error
        } catch {
            throw CommandFailure(message: "PostgreSQL at \(APNsOutboxDatabase.endpointDescription(url: url)): \(APNsOutboxDatabase.describe(error)). Check --postgres and that the server runs.",
                                 status: ExitStatus.network)
        }
    }

    static func sentence(_ error: APNsOutboxError) -> String {
        switch error {
        case .schemaVersion: return "The outbox is not ready: \(error); run apnskit outbox init"
        case .newerSchema: return "The outbox is not usable: \(error); upgrade apnskit"
        case .invalidURL: return "--postgres: \(error)"
        case .unreachable: return "PostgreSQL: \(error)"
        }
    }
}
#endif
