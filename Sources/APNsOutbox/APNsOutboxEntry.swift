// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation

/// A notification to put in the outbox: the columns an app fills (docs/outbox.md, "The
/// table"). `APNsOutboxStore.enqueue` inserts many in one statement; an app may as well INSERT
/// into the table itself, in the transaction of the change that causes the push.
public struct APNsOutboxEntry: Sendable {
    /// Device token, hex.
    public var token: String
    /// `apns-topic`; nil: the worker's default (its certificate's bundle id plus the push type's suffix).
    public var topic: String?
    public var pushType: APNsPushType
    public var priority: APNsPriority?
    /// `apns-expiration`, UNIX seconds (0: deliver once, do not store).
    public var expiration: UInt64?
    /// `apns-collapse-id`; nil: the row's own (`APNsOutboxIdentity`); "": none.
    public var collapseID: String?
    /// The JSON payload.
    public var payload: [UInt8]
    /// Not sent before this time (nil: now).
    public var notBefore: Date?

    public init(token: String, topic: String? = nil, pushType: APNsPushType = .alert, priority: APNsPriority? = nil, expiration: UInt64? = nil,
                collapseID: String? = nil, payload: [UInt8], notBefore: Date? = nil) {
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.notBefore = notBefore
    }
}

/// Row counts by state (`apnskit outbox status`).
public struct APNsOutboxStatus: Sendable, Equatable {
    public var counts: [APNsOutboxState: Int] = [:]
    /// Seconds since the oldest queued row was inserted (0 when none is queued).
    public var oldestQueuedAge: Double = 0
    /// Rows flagged possibly duplicated, in any state.
    public var possiblyDuplicated = 0

    public init() {}

    public func count(_ state: APNsOutboxState) -> Int { counts[state] ?? 0 }
    public var total: Int { counts.values.reduce(0, +) }
    /// Rows not yet in a final state.
    public var pending: Int { count(.queued) + count(.leased) }
}

/// Why an outbox operation could not run (the CLI adds the wording and flag hints).
public enum APNsOutboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database has no outbox, or an older one: `apnskit outbox init` migrates it.
    case schemaVersion(found: Int, expected: Int)
    /// The database's outbox is newer than this library knows: upgrade the workers first.
    case newerSchema(found: Int, known: Int)
    /// A connection string this library cannot use.
    case invalidURL(String)
    /// No connection to the database within this many seconds.
    case unreachable(seconds: Int)

    public var description: String {
        switch self {
        case .schemaVersion(let found, let expected):
            return found == 0 ? "the database has no outbox table (schema version 0, expected \(expected))"
                : "the outbox table is at schema version \(found), expected \(expected)"
        case .newerSchema(let found, let known):
            return "the outbox table is at schema version \(found), newer than this apnskit knows (\(known))"
        case .invalidURL(let why): return why
        case .unreachable(let seconds): return "no connection within \(seconds) s"
        }
    }
}
