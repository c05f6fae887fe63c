// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A Live Activity push's payload (apns-protocol.md §8), built instead of hand-written: the
/// `aps` keys ActivityKit reads, the timestamp filled in, and the start-only keys only on a
/// start. Send it with push type `liveactivity` to `<bundle>.push-type.liveactivity`, or as a
/// broadcast to a channel.
///
/// ```swift
/// var update = LiveActivityPayload(event: .update, contentState: .object([("score", .int(2))]))
/// update.staleDate = Date().addingTimeInterval(600)
/// let bytes = update.json()
/// ```
package struct LiveActivityPayload: Sendable, Equatable {
    package enum Event: String, Sendable, CaseIterable {
        case start, update, end
    }

    package var event: Event
    /// The activity's dynamic state: an object matching the app's `ContentState`.
    package var contentState: JSONValue
    /// When the update was made; ActivityKit ignores updates older than what it shows.
    package var timestamp = Date()
    package var staleDate: Date?
    /// For `end`: when the ended activity leaves the Lock Screen.
    package var dismissalDate: Date?
    package var relevanceScore: Double?
    /// Start only: the app's `ActivityAttributes` type name and its static values.
    package var attributesType: String?
    package var attributes: JSONValue?
    /// An alert shown with the start or update (title and body).
    package var alertTitle: String?
    package var alertBody: String?
    /// Start only: ask the started activity for an update token (`input-push-token: 1`), or
    /// subscribe it to a broadcast channel (`input-push-channel`).
    package var inputPushToken = false
    package var inputPushChannel: String?

    package init(event: Event, contentState: JSONValue) {
        self.event = event
        self.contentState = contentState
    }

    /// What ActivityKit would refuse, in a sentence; nil when the payload is complete.
    package func problem() -> String? {
        guard case .object = contentState else { return "the content state must be a JSON object" }
        if event == .start {
            guard attributesType != nil else { return "a Live Activity start needs attributes-type (the app's ActivityAttributes type name)" }
            guard case .object = attributes ?? .null else { return "a Live Activity start needs attributes (a JSON object)" }
            guard alertTitle != nil || alertBody != nil else { return "a Live Activity start needs an alert (title or body)" }
        } else if attributesType != nil || attributes != nil || inputPushToken || inputPushChannel != nil {
            return "attributes-type, attributes, input-push-token and input-push-channel belong to a start, not an \(event.rawValue)"
        }
        if inputPushToken && inputPushChannel != nil { return "give either input-push-token or input-push-channel, not both" }
        return nil
    }

    package func json() -> [UInt8] {
        var aps: [(String, JSONValue)] = [
            ("timestamp", .int(APNsLiveActivityKeys.unixSeconds(timestamp))),
            ("event", .string(event.rawValue)),
            ("content-state", contentState),
        ]
        if let staleDate { aps.append(("stale-date", .int(APNsLiveActivityKeys.unixSeconds(staleDate)))) }
        if let dismissalDate { aps.append(("dismissal-date", .int(APNsLiveActivityKeys.unixSeconds(dismissalDate)))) }
        if let relevanceScore { aps.append(("relevance-score", .double(relevanceScore))) }
        if let attributesType { aps.append(("attributes-type", .string(attributesType))) }
        if let attributes { aps.append(("attributes", attributes)) }
        if alertTitle != nil || alertBody != nil {
            var alert: [(String, JSONValue)] = []
            if let alertTitle { alert.append(("title", .string(alertTitle))) }
            if let alertBody { alert.append(("body", .string(alertBody))) }
            aps.append(("alert", .object(alert)))
        }
        if inputPushToken { aps.append(("input-push-token", .int(1))) }
        if let inputPushChannel { aps.append(("input-push-channel", .string(inputPushChannel))) }
        return JSONValue.object([("aps", .object(aps))]).serialized()
    }
}

extension JSONValue {
    /// A value parsed from JSON text (keys sorted, so the bytes written are stable); nil when
    /// the text is not JSON.
    package init?(parsing bytes: [UInt8]) {
        guard let any = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else { return nil }
        self.init(foundation: any)
    }

    private init?(foundation any: Any) {
        switch any {
        case let text as String: self = .string(text)
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { self = .bool(number.boolValue) } else if Double(number.intValue) == number.doubleValue { self = .int(number.intValue) } else { self = .double(number.doubleValue) }
        case let array as [Any]:
            var items: [JSONValue] = []
            for item in array {
                guard let value = JSONValue(foundation: item) else { return nil }
                items.append(value)
            }
            self = .array(items)
        case let object as [String: Any]:
            var members: [(String, JSONValue)] = []
            for key in object.keys.sorted() {
                guard let value = JSONValue(foundation: object[key]!) else { return nil }
                members.append((key, value))
            }
            self = .object(members)
        case is NSNull: self = .null
        default: return nil
        }
    }
}
