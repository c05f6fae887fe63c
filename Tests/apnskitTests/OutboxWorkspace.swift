// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import Foundation
import Testing
import TestSupport

/// A mock gateway's folder (CLIFixture: mock CA, auth key) and a database of its own in a
/// PostgreSQL cluster (shared by the outbox tests, or the test's own), with the outbox made
/// by `apnskit outbox init`. The checks read the table with psql, not through our code.
struct OutboxWorkspace {
    let fixture: CLIFixture
    let cluster: PostgresCluster
    let database: String

    /// One cluster for every outbox test that does not stop its server.
    static let sharedCluster = SharedFixture { try await PostgresCluster.start() }

    static func make(cluster: PostgresCluster? = nil) async throws -> OutboxWorkspace {
        try #require(PostgresCluster.isInstalled, "PostgreSQL is not installed: run scripts/setup.sh (Debian's postgresql)")
        let fixture = try await CLIFixture()
        try await fixture.prepareMock()
        let server: PostgresCluster
        if let cluster { server = cluster } else { server = try await sharedCluster.get() }
        let database = "outbox_\(UUID().uuidString.prefix(8).lowercased())"
        try await server.createDatabase(database)
        let workspace = OutboxWorkspace(fixture: fixture, cluster: server, database: database)
        let made = try await workspace.outbox(["init"])
        try #require(made.status == 0, "\(made)")
        return workspace
    }

    var url: String { cluster.url(database) }
    var dir: TemporaryDirectory { fixture.dir }

    /// `apnskit outbox SUBCOMMAND --postgres URL ARGUMENTS...` in the fixture's folder.
    @discardableResult
    func outbox(_ arguments: [String]) async throws -> ProcessResult {
        try await fixture.run(["outbox", arguments[0], "--postgres", url] + arguments.dropFirst())
    }

    /// The worker's credentials and gateway flags for a mock on `port`.
    static func gatewayFlags(port: Int) -> [String] {
        ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--gateway", "127.0.0.1:\(port)", "--ca-file", "mockca/ca-bundle.pem"]
    }

    /// `outbox run` in the background, against the mock on `port`.
    func worker(port: Int, _ extra: [String] = []) throws -> BackgroundProcess {
        try BackgroundProcess(Binaries.apnskit, ["outbox", "run", "--postgres", url] + Self.gatewayFlags(port: port) + extra, directory: dir.path)
    }

    /// `count` random 32-byte tokens, one per line, in `name`.
    func tokenFile(_ count: Int, name: String = "tokens.txt") throws -> String {
        var text = ""
        text.reserveCapacity(count * 65)
        for _ in 0..<count {
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
            text += bytes.map { String(format: "%02x", $0) }.joined() + "\n"
        }
        return try dir.write(name, text: text)
    }

    @discardableResult
    func psql(_ sql: String) async throws -> String { try await cluster.psql(sql, database: database) }

    /// Rows by state, as psql reads them.
    func counts() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in try await psql("SELECT state, count(*) FROM apns_outbox GROUP BY state").split(separator: "\n") {
            let parts = line.split(separator: "|")
            if parts.count == 2, let count = Int(parts[1]) { counts[String(parts[0])] = count }
        }
        return counts
    }

    /// Polls psql (every 200 ms, at most `seconds`) until `condition` holds on the counts.
    func waitForCounts(seconds: Double = 120, while alive: () -> Bool = { true }, _ condition: ([String: Int]) -> Bool) async throws -> Bool {
        condition(try await Wait.reading(seconds: seconds, every: .milliseconds(200), while: alive, { try await counts() }, until: condition))
    }

    /// A trigger that records every update of a row already in a final state: with it, "every
    /// row ends in exactly one final state" is checked by the database itself.
    func watchFinalStates() async throws {
        try await psql("""
            CREATE TABLE final_state_changes (id bigint, old_state text, new_state text);
            CREATE FUNCTION record_final_state_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO final_state_changes VALUES (OLD.id, OLD.state, NEW.state);
                RETURN NEW;
            END $$;
            CREATE TRIGGER final_state_changed BEFORE UPDATE ON apns_outbox FOR EACH ROW
                WHEN (OLD.state IN ('delivered', 'rejected', 'failed')) EXECUTE FUNCTION record_final_state_change();
            """)
    }

    /// The mock's `--record` file: apns-id -> how many times the mock accepted it.
    func recordedIDs(_ file: String = "record.jsonl") throws -> [String: Int] {
        var seen: [String: Int] = [:]
        let text = String(decoding: try dir.read(file), as: UTF8.self)
        for line in text.split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let id = object["apns_id"] as? String else { continue }
            seen[id, default: 0] += 1
        }
        return seen
    }

    /// The JSON summary a worker printed.
    static func summary(_ process: BackgroundProcess) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(process.stdout.utf8)) as? [String: Any]) ?? [:]
    }
}
#endif
