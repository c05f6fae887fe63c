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
    /// Anywhere in token, channel, topic, reason, apns-id, identity or payload.
    package var search: String?
    package var limit = InboxQuery.defaultLimit

    package static let defaultLimit = 200

    package init() {}

    /// From URL query parameters: `token`, `topic`, `status`, `push-type`, `q`, `limit` (capped
    /// at `maximum`, the inbox's size). A failure says in one sentence which one is malformed
    /// (a 400 for the client).
    package static func parse(_ parameters: [(String, String)], maximum: Int) -> Result<InboxQuery, QueryError> {
        var query = InboxQuery()
        query.limit = min(defaultLimit, maximum)
        for (name, rawValue) in parameters {
            let value: String? = rawValue.isEmpty ? nil : rawValue
            switch name {
            case "token": query.token = value?.lowercased()
            case "topic": query.topic = value?.lowercased()
            case "push-type": query.pushType = value?.lowercased()
            case "q": query.search = value?.lowercased()
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

    package func matches(_ event: InboxEvent) -> Bool {
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
        if let search {
            let fields = [event.deviceToken, event.channel, event.topic, event.reason, event.apnsID, event.sender, event.pushType]
            if !fields.contains(where: { Self.contains($0, search) }),
               !String(decoding: event.payload, as: UTF8.self).lowercased().contains(search) {
                return false
            }
        }
        return true
    }

    private static func contains(_ field: String?, _ needle: String) -> Bool {
        field?.lowercased().contains(needle) ?? false
    }

    package struct QueryError: Error, Sendable, Equatable {
        package let message: String
        init(_ message: String) { self.message = message }
    }
}
