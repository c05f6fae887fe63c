// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender
import Foundation

/// Where an outbox row stands (the `state` column, docs/outbox.md).
public enum APNsOutboxState: String, Sendable, CaseIterable {
    /// Waiting for a worker (new, released by a stopping worker, put back to retry later, or
    /// reclaimed from a worker whose lease ran out).
    case queued
    /// A worker holds it until `lease_until`.
    case leased
    /// APNs answered 200. Final.
    case delivered
    /// APNs refused it, or it was refused before sending for what APNs is sure to refuse (a
    /// bad token, an oversize payload, an unknown push type): `reason` says why. Final.
    case rejected
    /// No answer could be had within the attempts allowed, after it was written at least once:
    /// `detail` says why. Final.
    case failed

    /// Whether a row in this state is done: exactly one of these per row, once.
    public var isFinal: Bool { self == .delivered || self == .rejected || self == .failed }
}

/// What a queue does with a message after one send: the rules every outbox worker follows,
/// public so that a consumer of another queue (Kafka, NATS, SQS) gets the same guarantees
/// (docs/outbox.md, "Your own queue"): a final state exactly once; a message never written
/// goes back without counting as an attempt; one that may have reached APNs is retried only
/// with `possiblyDuplicated` set.
public struct APNsOutboxDisposition: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Record this final state; the message is done.
        case finish(APNsOutboxState)
        /// Put the message back, to be sent again no sooner than `after`; the attempt counts.
        case retry(after: Duration)
        /// Put the message back untried (APNs never saw it): the attempt does not count.
        case release(after: Duration)
    }

    public var action: Action
    /// APNs may have (or, once sent again, may get) this notification more than once.
    public var possiblyDuplicated: Bool
    /// APNs' HTTP status (nil when refused before sending, or when no answer came).
    public var status: Int?
    /// APNs' reason, or for a refusal before sending the reason APNs would have given.
    public var reason: APNsReason?
    /// One sentence for people: what happened.
    public var detail: String?
    /// A 410's timestamp: when APNs learned the token was no longer valid.
    public var unregisteredAt: Date?
    /// `apns-unique-id` (sandbox answers carry one).
    public var uniqueID: UUID?

    public init(action: Action, possiblyDuplicated: Bool = false, status: Int? = nil, reason: APNsReason? = nil, detail: String? = nil,
                unregisteredAt: Date? = nil, uniqueID: UUID? = nil) {
        self.action = action
        self.possiblyDuplicated = possiblyDuplicated
        self.status = status
        self.reason = reason
        self.detail = detail
        self.unregisteredAt = unregisteredAt
        self.uniqueID = uniqueID
    }

    /// A message refused before sending: what APNs would certainly refuse too.
    public static func refused(_ reason: APNsReason, _ detail: String) -> APNsOutboxDisposition {
        APNsOutboxDisposition(action: .finish(.rejected), reason: reason, detail: detail)
    }

    /// The statuses APNs asks to retry (429, 500, 503): a row is sent again later, unless its
    /// attempts are used up, then APNs' last answer is final.
    static let retryableStatuses: Set<Int> = [429, 500, 503]

    /// The disposition of `result`, the outcome of attempt `attempt` (1 for the first) of a
    /// message allowed `maximumAttempts`. `retryDelay` is how long a retried message waits.
    public static func of(_ result: APNsSendResult, attempt: Int, maximumAttempts: Int, retryDelay: Duration = .seconds(5)) -> APNsOutboxDisposition {
        let duplicated = result.possiblyDuplicated
        let exhausted = attempt >= maximumAttempts
        switch result.outcome {
        case .delivered:
            return APNsOutboxDisposition(action: .finish(.delivered), possiblyDuplicated: duplicated, status: 200, uniqueID: result.uniqueID)
        case .rejected(let status, let reason, let timestamp):
            if retryableStatuses.contains(status) && !exhausted {
                return APNsOutboxDisposition(action: .retry(after: retryDelay), possiblyDuplicated: duplicated, status: status, reason: reason,
                                             detail: "APNs answered \(status) \(reason.rawValue); sent again later.", uniqueID: result.uniqueID)
            }
            return APNsOutboxDisposition(action: .finish(.rejected), possiblyDuplicated: duplicated, status: status, reason: reason,
                                         detail: reason.advice, unregisteredAt: timestamp, uniqueID: result.uniqueID)
        case .failed(let error):
            if !error.mayHaveBeenDelivered {
                // Never written (the gateway unreachable, the client closing): APNs never saw it,
                // so it waits without counting as an attempt; it is not "failed".
                return APNsOutboxDisposition(action: .release(after: retryDelay), possiblyDuplicated: duplicated, detail: error.description)
            }
            if exhausted {
                return APNsOutboxDisposition(action: .finish(.failed), possiblyDuplicated: duplicated,
                                             detail: "No answer after \(attempt) attempts: \(error.description)")
            }
            return APNsOutboxDisposition(action: .retry(after: retryDelay), possiblyDuplicated: true, detail: error.description)
        case .cancelled(let written):
            if !written { return APNsOutboxDisposition(action: .release(after: .zero), possiblyDuplicated: duplicated) }
            if exhausted {
                return APNsOutboxDisposition(action: .finish(.failed), possiblyDuplicated: true,
                                             detail: "Cancelled after it was written, \(attempt) attempts: APNs may have it.")
            }
            return APNsOutboxDisposition(action: .retry(after: .zero), possiblyDuplicated: true,
                                         detail: "Cancelled after it was written (APNs may have it); sent again.")
        }
    }
}
