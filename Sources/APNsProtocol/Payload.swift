// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The `aps` dictionary and custom keys of a notification, built without hand-written JSON.
package struct Payload: Sendable, Equatable {
    package var title: String?
    package var subtitle: String?
    package var body: String?
    package var badge: Int?
    package var sound: String?
    package var category: String?
    package var threadID: String?
    package var contentAvailable = false
    package var mutableContent = false
    /// passive, active, time-sensitive, critical
    package var interruptionLevel: String?
    /// 0...1
    package var relevanceScore: Double?
    /// Keys beside `aps`, in order.
    package var custom: [(String, JSONValue)] = []

    package init() {}

    package static func == (lhs: Payload, rhs: Payload) -> Bool { lhs.json() == rhs.json() }

    /// The payload's JSON bytes: `{"aps":{...},custom...}`.
    package func json() -> [UInt8] {
        var aps: [(String, JSONValue)] = []
        var alert: [(String, JSONValue)] = []
        if let title { alert.append(("title", .string(title))) }
        if let subtitle { alert.append(("subtitle", .string(subtitle))) }
        if let body { alert.append(("body", .string(body))) }
        if !alert.isEmpty {
            aps.append(("alert", alert.count == 1 && body != nil ? .string(body!) : .object(alert)))
        }
        if let badge { aps.append(("badge", .int(badge))) }
        if let sound { aps.append(("sound", .string(sound))) }
        if let category { aps.append(("category", .string(category))) }
        if let threadID { aps.append(("thread-id", .string(threadID))) }
        if contentAvailable { aps.append(("content-available", .int(1))) }
        if mutableContent { aps.append(("mutable-content", .int(1))) }
        if let interruptionLevel { aps.append(("interruption-level", .string(interruptionLevel))) }
        if let relevanceScore { aps.append(("relevance-score", .double(relevanceScore))) }
        return JSONValue.object([("aps", .object(aps))] + custom).serialized()
    }
}

/// Checks a raw payload before it is sent: non-empty, within the push type's limit, and a
/// JSON object (APNs silently drops what it cannot parse, so this is caught locally). Raw and
/// typed payloads (`APNsPayload.encoded(with:)`) go through this one check.
package enum PayloadCheck {
    package enum Problem: Sendable, Equatable {
        case empty
        case tooLarge(size: Int, limit: Int, pushType: APNsPushType)
        case notAnObject

        /// A clause for the caller's sentence, lower-case.
        package var sentence: String {
            switch self {
            case .empty: return "the payload is empty"
            case .tooLarge(let size, let limit, let pushType):
                return "the payload is \(size) bytes; APNs takes at most \(limit) for \(pushType.rawValue) pushes"
            case .notAnObject: return "the payload is not a JSON object"
            }
        }
    }

    /// `limit`: the size limit when it is not the push type's (a broadcast's 5,120 bytes).
    package static func problem(_ bytes: [UInt8], pushType: APNsPushType?, limit: Int? = nil) -> Problem? {
        let pushType = pushType ?? .alert
        let limit = limit ?? pushType.payloadLimit
        if bytes.isEmpty { return .empty }
        if bytes.count > limit { return .tooLarge(size: bytes.count, limit: limit, pushType: pushType) }
        if !JSONSyntax.isObject(bytes) { return .notAnObject }
        return nil
    }

    package static func validate(_ bytes: [UInt8], pushType: APNsPushType?) -> String? {
        problem(bytes, pushType: pushType)?.sentence
    }
}
