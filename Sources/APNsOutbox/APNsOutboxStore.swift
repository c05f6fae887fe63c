// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import APNsProtocol
import APNsSender
import Foundation
import Logging
import PostgresNIO

/// The outbox table through one `PostgresClient` (the app's own, or `APNsOutboxDatabase`'s):
/// migrations, inserts, claims, results and counts. Every method is one statement (migrations:
/// one transaction), so a batch of results ends its leases atomically.
public struct APNsOutboxStore: Sendable {
    public let client: PostgresClient
    let logger: Logger

    /// `logger` receives postgres-nio's query logs (none when nil: a library is quiet).
    public init(client: PostgresClient, logger: Logger? = nil) {
        self.client = client
        self.logger = logger ?? Logger(label: "apnskit.outbox", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    // MARK: Schema

    /// The schema version the database has (0: no outbox yet).
    public func schemaVersion() async throws -> Int {
        let exists = try await client.query("SELECT to_regclass('apns_outbox_schema') IS NOT NULL", logger: logger)
        for try await present in exists.decode(Bool.self) where !present { return 0 }
        let rows = try await client.query("SELECT COALESCE(max(version), 0) FROM apns_outbox_schema", logger: logger)
        for try await version in rows.decode(Int32.self) { return Int(version) }
        return 0
    }

    /// Brings the table to `APNsOutboxSchema.currentVersion`; returns the versions before and
    /// after. Safe to run from several processes at once, and again: an up-to-date database is
    /// left alone.
    @discardableResult
    public func migrate() async throws -> (from: Int, to: Int) {
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('apns_outbox_schema'))", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS apns_outbox_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                                       logger: logger)
            var from = 0
            for try await version in try await connection.query("SELECT COALESCE(max(version), 0) FROM apns_outbox_schema", logger: logger).decode(Int32.self) {
                from = Int(version)
            }
            guard from <= APNsOutboxSchema.currentVersion else { throw APNsOutboxError.newerSchema(found: from, known: APNsOutboxSchema.currentVersion) }
            for version in (from + 1)..<(APNsOutboxSchema.currentVersion + 1) {
                for statement in APNsOutboxSchema.migrations[version - 1] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                let number = Int32(version)
                try await connection.query("INSERT INTO apns_outbox_schema (version) VALUES (\(number))", logger: logger)
            }
            return (from, APNsOutboxSchema.currentVersion)
        }
    }

    /// Throws unless the database is at the version this library writes.
    public func requireCurrentSchema() async throws {
        let version = try await schemaVersion()
        if version != APNsOutboxSchema.currentVersion { throw APNsOutboxError.schemaVersion(found: version, expected: APNsOutboxSchema.currentVersion) }
    }

    // MARK: Producing

    /// Inserts `entries` in one statement; returns their ids in order. An app may as well
    /// INSERT itself, in its own transaction (docs/outbox.md).
    @discardableResult
    public func enqueue(_ entries: [APNsOutboxEntry]) async throws -> [Int64] {
        if entries.isEmpty { return [] }
        let tokens = entries.map(\.token)
        let topics = entries.map { $0.topic ?? "" }
        let types = entries.map { $0.pushType.rawValue }
        let priorities = entries.map { Int32($0.priority?.rawValue ?? 0) }
        let expirations = entries.map { $0.expiration.map { Int64(clamping: $0) } ?? -1 }
        let collapseSet = entries.map { $0.collapseID != nil }
        let collapseIDs = entries.map { $0.collapseID ?? "" }
        let payloads = entries.map { String(decoding: $0.payload, as: UTF8.self) }
        let notBefore = entries.map { $0.notBefore ?? Date(timeIntervalSince1970: 0) }
        let query: PostgresQuery = """
            INSERT INTO apns_outbox (token, topic, push_type, priority, expiration, collapse_id, payload, not_before)
            SELECT t, NULLIF(tp, ''), pt, NULLIF(pr, 0)::smallint, NULLIF(ex, -1), CASE WHEN cs THEN ci END, pl, GREATEST(nb, now())
            FROM unnest(\(tokens)::text[], \(topics)::text[], \(types)::text[], \(priorities)::int[], \(expirations)::bigint[],
                        \(collapseSet)::bool[], \(collapseIDs)::text[], \(payloads)::text[], \(notBefore)::timestamptz[])
                 WITH ORDINALITY AS e(t, tp, pt, pr, ex, cs, ci, pl, nb, n)
            ORDER BY n
            RETURNING id
            """
        var ids: [Int64] = []
        ids.reserveCapacity(entries.count)
        for try await id in try await client.query(query, logger: logger).decode(Int64.self) { ids.append(id) }
        return ids
    }

    // MARK: Working

    /// Leases up to `limit` queued rows due now to `owner` until `lease` from now, oldest
    /// first, skipping rows another worker has locked. Each claim counts as an attempt.
    func claim(owner: UUID, limit: Int, lease: Duration) async throws -> [APNsOutboxRow] {
        let leaseMilliseconds = lease.milliseconds
        let limit = Int64(limit)
        let payloadLimit = Int32(APNsOutboxRow.maximumPayload)
        let tokenLimit = Int32(APNsOutboxRow.maximumTokenText)
        let textLimit = Int32(APNsOutboxRow.maximumShortText)
        let query: PostgresQuery = """
            UPDATE apns_outbox AS o
            SET state = 'leased', lease_owner = \(owner), lease_until = now() + \(leaseMilliseconds)::float8 * interval '1 millisecond',
                attempts = o.attempts + 1
            FROM (SELECT id FROM apns_outbox WHERE state = 'queued' AND not_before <= now()
                  ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED) AS c
            WHERE o.id = c.id
            RETURNING o.id,
                CASE WHEN octet_length(o.token) <= \(tokenLimit) THEN o.token END,
                CASE WHEN octet_length(o.topic) <= \(textLimit) THEN o.topic END,
                CASE WHEN octet_length(o.push_type) <= \(textLimit) THEN o.push_type END,
                o.priority, o.expiration,
                CASE WHEN octet_length(o.collapse_id) <= \(textLimit) THEN o.collapse_id END,
                CASE WHEN octet_length(o.payload) <= \(payloadLimit) THEN o.payload END,
                octet_length(o.payload), o.attempts, o.possibly_duplicated,
                CASE WHEN octet_length(o.token) > \(tokenLimit) THEN 'token'
                     WHEN octet_length(o.topic) > \(textLimit) THEN 'topic'
                     WHEN octet_length(o.push_type) > \(textLimit) THEN 'push_type'
                     WHEN octet_length(o.collapse_id) > \(textLimit) THEN 'collapse_id' END
            """
        var rows: [APNsOutboxRow] = []
        let decoded = try await client.query(query, logger: logger)
            .decode((Int64, String?, String?, String?, Int16?, Int64?, String?, String?, Int32, Int32, Bool, String?).self)
        for try await (id, token, topic, pushType, priority, expiration, collapseID, payload, payloadBytes, attempts, duplicated, oversize) in decoded {
            rows.append(APNsOutboxRow(id: id, token: token, topic: topic, pushType: pushType, priority: priority.map(Int.init), expiration: expiration,
                                      collapseID: collapseID, payload: payload, payloadBytes: Int(payloadBytes), attempts: Int(attempts),
                                      possiblyDuplicated: duplicated, oversizeColumn: oversize))
        }
        rows.sort { $0.id < $1.id }
        return rows
    }

    /// Writes a batch of outcomes and ends their leases, in one statement: a row still leased
    /// to `owner` takes its outcome; a row whose lease ran out (another worker has it now)
    /// keeps the other worker's. Returns the rows written.
    @discardableResult
    func finish(owner: UUID, _ outcomes: [APNsOutboxOutcome]) async throws -> Int {
        if outcomes.isEmpty { return 0 }
        var ids: [Int64] = [], states: [String] = [], statuses: [Int32] = [], reasons: [String] = [], details: [String] = []
        var unregistered: [Int64] = [], apnsIDs: [UUID] = [], uniqueIDs: [String] = [], duplicated: [Bool] = []
        var delays: [Int64] = [], counted: [Bool] = []
        for outcome in outcomes {
            let disposition = outcome.disposition
            ids.append(outcome.id)
            switch disposition.action {
            case .finish(let state):
                states.append(state.rawValue); delays.append(0); counted.append(true)
            case .retry(let after):
                states.append(APNsOutboxState.queued.rawValue); delays.append(after.milliseconds); counted.append(true)
            case .release(let after):
                states.append(APNsOutboxState.queued.rawValue); delays.append(after.milliseconds); counted.append(false)
            }
            statuses.append(Int32(clamping: disposition.status ?? 0))
            reasons.append(disposition.reason?.rawValue ?? "")
            details.append(disposition.detail ?? "")
            unregistered.append(disposition.unregisteredAt.map { Int64(APNsSendResult.milliseconds($0)) } ?? 0)
            apnsIDs.append(outcome.apnsID)
            uniqueIDs.append(disposition.uniqueID.map { MessageID.text($0) } ?? "")
            duplicated.append(disposition.possiblyDuplicated)
        }
        let query: PostgresQuery = """
            UPDATE apns_outbox AS o SET
                state = r.state,
                status = NULLIF(r.status, 0)::smallint,
                reason = NULLIF(r.reason, ''),
                detail = NULLIF(r.detail, ''),
                unregistered_at = CASE WHEN r.unregistered = 0 THEN NULL ELSE to_timestamp(r.unregistered / 1000.0) END,
                apns_id = r.apns_id,
                apns_unique_id = COALESCE(NULLIF(r.unique_id, '')::uuid, o.apns_unique_id),
                possibly_duplicated = o.possibly_duplicated OR r.duplicated,
                attempts = CASE WHEN r.counted THEN o.attempts ELSE o.attempts - 1 END,
                not_before = CASE WHEN r.state = 'queued' THEN now() + r.delay::float8 * interval '1 millisecond' ELSE o.not_before END,
                finished_at = CASE WHEN r.state = 'queued' THEN NULL ELSE now() END,
                lease_owner = NULL, lease_until = NULL
            FROM unnest(\(ids)::bigint[], \(states)::text[], \(statuses)::int[], \(reasons)::text[], \(details)::text[],
                        \(unregistered)::bigint[], \(apnsIDs)::uuid[], \(uniqueIDs)::text[], \(duplicated)::bool[], \(delays)::bigint[],
                        \(counted)::bool[])
                 AS r(id, state, status, reason, detail, unregistered, apns_id, unique_id, duplicated, delay, counted)
            WHERE o.id = r.id AND o.state = 'leased' AND o.lease_owner = \(owner)
            RETURNING o.id
            """
        var written = 0
        for try await _ in try await client.query(query, logger: logger).decode(Int64.self) { written += 1 }
        return written
    }

    /// Pushes `owner`'s leases `lease` into the future (a worker's heartbeat).
    /// Only the rows `ids` names: a claim whose answer was lost (the connection broke after the
    /// server committed it) leased rows the worker never saw, and renewing every row of the
    /// owner's would hold those forever; left alone, their lease runs out and they are reclaimed.
    func extendLeases(owner: UUID, ids: [Int64], lease: Duration) async throws {
        if ids.isEmpty { return }
        let leaseMilliseconds = lease.milliseconds
        try await client.query("""
            UPDATE apns_outbox SET lease_until = now() + \(leaseMilliseconds)::float8 * interval '1 millisecond'
            WHERE state = 'leased' AND lease_owner = \(owner) AND id = ANY(\(ids)::bigint[])
            """, logger: logger)
    }

    /// Queues again up to `limit` rows whose lease ran out: their worker died or stalled, and
    /// may have written them to APNs, so they are flagged possibly duplicated. Returns how many.
    @discardableResult
    func reclaimExpiredLeases(limit: Int = 10_000) async throws -> Int {
        let limit = Int64(limit)
        let query: PostgresQuery = """
            UPDATE apns_outbox AS o SET state = 'queued', possibly_duplicated = true, lease_owner = NULL, lease_until = NULL, not_before = now()
            FROM (SELECT id FROM apns_outbox WHERE state = 'leased' AND lease_until < now() LIMIT \(limit) FOR UPDATE SKIP LOCKED) AS c
            WHERE o.id = c.id
            RETURNING o.id
            """
        var count = 0
        for try await _ in try await client.query(query, logger: logger).decode(Int64.self) { count += 1 }
        if count > 0 { try await client.query("SELECT pg_notify('apns_outbox', '')", logger: logger) }
        return count
    }

    // MARK: Watching

    /// Whether any row is queued or leased (two index probes, cheap enough to ask often).
    public func hasPendingRows() async throws -> Bool {
        let rows = try await client.query("""
            SELECT EXISTS (SELECT 1 FROM apns_outbox WHERE state = 'queued') OR EXISTS (SELECT 1 FROM apns_outbox WHERE state = 'leased')
            """, logger: logger)
        for try await pending in rows.decode(Bool.self) { return pending }
        return false
    }

    /// Counts by state, the oldest queued row's age and the possibly duplicated rows.
    public func status() async throws -> APNsOutboxStatus {
        var status = APNsOutboxStatus()
        let rows = try await client.query("""
            SELECT state, count(*)::bigint, count(*) FILTER (WHERE possibly_duplicated)::bigint,
                   COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8
            FROM apns_outbox GROUP BY state
            """, logger: logger)
        for try await (state, count, duplicated, age) in rows.decode((String, Int64, Int64, Double).self) {
            guard let known = APNsOutboxState(rawValue: state) else { continue }
            status.counts[known] = Int(count)
            status.possiblyDuplicated += Int(duplicated)
            if known == .queued { status.oldestQueuedAge = max(0, age) }
        }
        return status
    }
}

/// One row's outcome, as a worker writes it back.
struct APNsOutboxOutcome: Sendable {
    var id: Int64
    var apnsID: UUID
    var disposition: APNsOutboxDisposition
}

extension Duration {
    /// Whole milliseconds, for SQL intervals.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
#endif
