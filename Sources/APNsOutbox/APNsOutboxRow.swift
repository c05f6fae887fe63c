// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender
import Foundation

/// A claimed outbox row as the worker reads it. Text columns are read only up to the bounds
/// below (the claim sends NULL past them, with the length): a row of hostile size costs the
/// worker nothing and ends rejected.
public struct APNsOutboxRow: Sendable {
    public let id: Int64
    /// Hex; nil when the column is longer than `maximumTokenText`.
    public var token: String?
    public var topic: String?
    /// nil: the column was NULL, or longer than `maximumShortText` (`pushTypeTooLong`).
    public var pushType: String?
    public var priority: Int?
    public var expiration: Int64?
    /// nil: none set. An empty string: the app turned the default off for this row.
    public var collapseID: String?
    /// nil when longer than `maximumPayload` bytes (`payloadBytes` says how long).
    public var payload: String?
    public var payloadBytes: Int
    /// Claims of this row so far, this one included.
    public var attempts: Int
    /// Set on an earlier claim whose worker died, or an attempt that may have reached APNs.
    public var possiblyDuplicated: Bool
    /// Whether a column was past its bound (token, topic, push type, collapse id).
    public var oversizeColumn: String?

    /// APNs' largest payload (VoIP, 5120 bytes): a longer one is refused unread.
    public static let maximumPayload = 5120
    /// Hex of the largest token (100 bytes) with room for separators.
    public static let maximumTokenText = 256
    /// Topic, push type and collapse id columns read at most this many bytes.
    public static let maximumShortText = 256

    public init(id: Int64, token: String?, topic: String?, pushType: String?, priority: Int?, expiration: Int64?, collapseID: String?,
                payload: String?, payloadBytes: Int, attempts: Int, possiblyDuplicated: Bool, oversizeColumn: String? = nil) {
        self.id = id
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.payloadBytes = payloadBytes
        self.attempts = attempts
        self.possiblyDuplicated = possiblyDuplicated
        self.oversizeColumn = oversizeColumn
        apnsID = APNsOutboxIdentity.apnsID(forKey: APNsOutboxIdentity.rowKey(id))
    }

    /// The row's `apns-id`, the same for every attempt (`APNsOutboxIdentity`): derived once
    /// per claim (a SHA-1), not per use.
    public let apnsID: UUID

    /// The notification to send, or why it is refused before sending (what APNs would refuse
    /// too). `rowCollapseID`: a row without a collapse id of its own gets its `apns-id` as one.
    public func notification(rowCollapseID: Bool) -> Result<APNsNotification, RefusedRow> {
        if let oversizeColumn {
            let reason: APNsReason = switch oversizeColumn {
            case "token": .badDeviceToken
            case "topic": .badTopic
            case "push_type": .invalidPushType
            default: .badCollapseId
            }
            return .failure(RefusedRow(reason: reason, detail: "The \(oversizeColumn) column is longer than APNs takes."))
        }
        guard let tokenText = token else { return .failure(RefusedRow(reason: .missingDeviceToken, detail: "The token column is empty.")) }
        let deviceToken: APNsDeviceToken
        do { deviceToken = try APNsDeviceToken(parsing: tokenText) } catch {
            return .failure(RefusedRow(reason: .badDeviceToken, detail: "The token \(error)."))
        }
        var type: APNsPushType?
        if let pushType {
            guard let known = APNsPushType(rawValue: pushType) else {
                return .failure(RefusedRow(reason: .invalidPushType, detail: "The push type is not one APNs knows (alert, background, voip, ...)."))
            }
            type = known
        }
        var chosenPriority: APNsPriority?
        if let priority {
            guard let known = APNsPriority(rawValue: priority) else {
                return .failure(RefusedRow(reason: .badPriority, detail: "The priority is \(priority); APNs takes 10, 5 or 1."))
            }
            chosenPriority = known
        }
        var expirationSeconds: UInt64?
        if let expiration {
            guard expiration >= 0 else { return .failure(RefusedRow(reason: .badExpirationDate, detail: "The expiration is negative; give UNIX seconds, or 0.")) }
            expirationSeconds = UInt64(expiration)
        }
        guard let payload else {
            return .failure(RefusedRow(reason: .payloadTooLarge, detail: "The payload is \(payloadBytes) bytes; APNs takes at most \(Self.maximumPayload)."))
        }
        let bytes = Array(payload.utf8)
        if let problem = PayloadCheck.problem(bytes, pushType: type) {
            let reason: APNsReason = switch problem {
            case .empty: .payloadEmpty
            case .tooLarge: .payloadTooLarge
            case .notAnObject: APNsReason(rawValue: "BadPayload")
            }
            return .failure(RefusedRow(reason: reason, detail: "Refused before sending: \(problem.sentence)."))
        }
        var collapse = collapseID
        if collapse == nil && rowCollapseID { collapse = MessageID.text(apnsID) }
        if collapse == "" { collapse = nil }
        if let collapse, collapse.utf8.count > 64 {
            return .failure(RefusedRow(reason: .badCollapseId, detail: "The collapse id is longer than 64 bytes."))
        }
        let topicValue = topic.flatMap { $0.isEmpty ? nil : $0 }
        return .success(APNsNotification(token: deviceToken, payload: bytes, topic: topicValue, pushType: type, priority: chosenPriority,
                                         expiration: expirationSeconds, collapseID: collapse, apnsID: apnsID))
    }

    /// Why a row is refused before sending.
    public struct RefusedRow: Error, Sendable, Equatable {
        public var reason: APNsReason
        public var detail: String
    }
}
