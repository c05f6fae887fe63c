// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import Foundation

/// The filters of `GET /api/notifications` (and of the page, which applies the same rules to
/// live events): every given one must match. Text matches ignore case.
package struct InboxQuery: Sendable, Equatable {
    /// Part of the device token (or broadcast channel id).
    package var token: String?
    /// Part of the topic.
    package var topic: String?
    /// "accepted", "rejected", or a status number (e.g. 410).
    package var status: String?
    /// The apns-push-type exactly (e.g. background); "none" for requests without one.
    package var pushType: String?
    /// Anywhere in token, channel, topic, reason, apns-id, identity or payload: UTF-8, folded
    /// as `SearchText.fold` folds the entries' text.
    package var search: [UInt8]?
    package var limit = InboxQuery.defaultLimit

    package static let defaultLimit = 200
    /// The longest text filter (`q`, `token`, `topic`, `push-type`), in bytes. Tokens of every kind are
    /// 16 to 200 hex digits (apns-protocol.md §6) and topics at most 155 characters plus a push-type suffix, so 256
    /// finds anything an entry can hold; a longer needle only made each search slower (a
    /// 5,001-character `q` once kept a core busy for over ten minutes).
    package static let maxTextLength = 256

    package init() {}

    /// From URL query parameters: `token`, `topic`, `status`, `push-type`, `q`, `limit` (capped
    /// at `maximum`, the inbox's size). A failure says in one sentence which one is malformed
    /// (a 400 for the client).
    package static func parse(_ parameters: [(String, String)], maximum: Int) -> Result<InboxQuery, QueryError> {
        var query = InboxQuery()
        query.limit = min(defaultLimit, maximum)
        for (name, rawValue) in parameters {
            let value: String? = rawValue.isEmpty ? nil : rawValue
            if ["token", "topic", "push-type", "q"].contains(name), rawValue.utf8.count > maxTextLength {
                return .failure(QueryError("\(name) is \(rawValue.utf8.count) bytes long, more than \(maxTextLength); search for a shorter part."))
            }
            switch name {
            case "token": query.token = value?.lowercased()
            case "topic": query.topic = value?.lowercased()
            case "push-type": query.pushType = value?.lowercased()
            case "q": query.search = value.map { SearchText.fold(Array($0.utf8)) }
            case "status":
                guard let value else { continue }
                guard value == "accepted" || value == "rejected" || Int(value) != nil else {
                    return .failure(QueryError("status must be accepted, rejected or a number such as 410."))
                }
                query.status = value
            case "limit":
                guard let value else { continue }
                guard let number = Int(value), number >= 1 else { return .failure(QueryError("limit must be a number of 1 or more.")) }
                query.limit = min(number, maximum)
            default:
                return .failure(QueryError("unknown parameter '\(name)': use token, topic, status, push-type, q or limit."))
            }
        }
        return .success(query)
    }

    package func matches(_ entry: InboxStore.Entry) -> Bool {
        let event = entry.event
        if let token, !Self.contains(event.deviceToken, token), !Self.contains(event.channel, token) { return false }
        if let topic, !Self.contains(event.topic, topic) { return false }
        if let pushType {
            if pushType == "none" { if event.pushType != nil { return false } } else if event.pushType?.lowercased() != pushType { return false }
        }
        if let status {
            switch status {
            case "accepted": if !event.accepted { return false }
            case "rejected": if event.accepted { return false }
            default: if String(event.status) != status { return false }
            }
        }
        if let search, !entry.searchText.containsBytes(search) { return false }
        return true
    }

    private static func contains(_ field: String?, _ needle: String) -> Bool {
        field?.lowercased().contains(needle) ?? false
    }

    package struct QueryError: Error, Sendable, Equatable {
        package let message: String
        package init(_ message: String) { self.message = message }
    }
}
