// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// An alert push (push type `alert`): the full `aps` dictionary Apple documents ("Generating
/// a remote notification"; apns-protocol.md §8), and the app's own keys beside `aps`.
///
/// ```swift
/// var payload = APNsAlertPayload(alert: APNsAlert(title: "Order shipped", body: "Arrives Tuesday"))
/// payload.badge = 1
/// payload.sound = .default
/// payload.custom = ["order": "A-1042"]
/// let notification = try APNsNotification(token: token, payload: payload)
/// ```
public struct APNsAlertPayload: APNsPayload {
    /// The text shown; nil for a notification that only sets the badge or plays a sound.
    public var alert: APNsAlert?
    /// The number on the app icon; 0 removes it.
    public var badge: Int?
    /// The sound played; nil plays none (an alert is silent unless it names one).
    public var sound: APNsSound?
    /// `thread-id`: groups notifications in Notification Center.
    public var threadID: String?
    /// The notification category the app registered (its actions).
    public var category: String?
    /// `mutable-content: 1`: the app's notification service extension may change it first.
    public var mutableContent = false
    /// `content-available: 1`: also wake the app in the background.
    public var contentAvailable = false
    /// `target-content-id`: the window brought forward when the notification is opened.
    public var targetContentID: String?
    /// `interruption-level`: how urgently it is presented; nil is the system's `active`.
    public var interruptionLevel: APNsInterruptionLevel?
    /// `relevance-score`, 0...1: how the notification summary ranks it.
    public var relevanceScore: Double?
    /// `filter-criteria`: the Focus filter that decides whether it is shown.
    public var filterCriteria: String?
    /// The app's own top-level keys: any `Encodable` that encodes as a keyed container (a
    /// struct, a `[String: ...]` dictionary), written beside `aps`. It may not use `aps`.
    public var custom: (any Encodable & Sendable)?

    /// An alert payload; set the other `aps` keys (badge, sound, ...) on the value afterwards.
    public init(alert: APNsAlert? = nil, custom: (any Encodable & Sendable)? = nil) {
        self.alert = alert
        self.custom = custom
    }

    public var pushType: APNsPushType { .alert }

    struct APS: Encodable {
        let payload: APNsAlertPayload

        enum CodingKeys: String, CodingKey {
            case alert, badge, sound, category
            case threadID = "thread-id", mutableContent = "mutable-content", contentAvailable = "content-available"
            case targetContentID = "target-content-id", interruptionLevel = "interruption-level"
            case relevanceScore = "relevance-score", filterCriteria = "filter-criteria"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(payload.alert, forKey: .alert)
            try container.encodeIfPresent(payload.badge, forKey: .badge)
            try container.encodeIfPresent(payload.sound, forKey: .sound)
            try container.encodeIfPresent(payload.threadID, forKey: .threadID)
            try container.encodeIfPresent(payload.category, forKey: .category)
            if payload.mutableContent { try container.encode(1, forKey: .mutableContent) }
            if payload.contentAvailable { try container.encode(1, forKey: .contentAvailable) }
            try container.encodeIfPresent(payload.targetContentID, forKey: .targetContentID)
            try container.encodeIfPresent(payload.interruptionLevel, forKey: .interruptionLevel)
            if let score = payload.relevanceScore {
                try APNsUnitInterval.check(score, "aps.relevance-score")
                try container.encode(score, forKey: .relevanceScore)
            }
            try container.encodeIfPresent(payload.filterCriteria, forKey: .filterCriteria)
        }
    }

    /// Writes `aps` with the keys set (false flags and nil values left out, as Apple's examples
    /// do), then the app's keys beside it; throws `APNsPayloadError` for a value outside Apple's ranges.
    public func encode(to encoder: any Encoder) throws {
        try APNsAppKeys.encode(aps: APS(payload: self), custom: custom, to: encoder)
    }
}

/// A background push (push type `background`, sent at priority 5: APNs treats 10 as an error
/// for it, apns-protocol.md §1): `{"aps":{"content-available":1}}` and the app's own keys,
/// which the app reads in `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
public struct APNsBackgroundPayload: APNsPayload {
    /// The app's own top-level keys, as in `APNsAlertPayload.custom`.
    public var custom: (any Encodable & Sendable)?

    /// A background push carrying `custom` for the app (nil: only the wake-up).
    public init(custom: (any Encodable & Sendable)? = nil) { self.custom = custom }

    public var pushType: APNsPushType { .background }
    public var defaultPriority: APNsPriority? { .conservePower }

    struct APS: Encodable {
        enum CodingKeys: String, CodingKey { case contentAvailable = "content-available" }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(1, forKey: .contentAvailable)
        }
    }

    /// Writes `aps` with `content-available: 1`, then the app's keys beside it.
    public func encode(to encoder: any Encoder) throws {
        try APNsAppKeys.encode(aps: APS(), custom: custom, to: encoder)
    }
}

/// A widget reload push (push type `widgets`, apns-protocol.md §8): always
/// `{"aps":{"content-changed":true}}`; WidgetKit then asks the app's timeline provider.
public struct APNsWidgetsPayload: APNsPayload {
    /// The one widgets payload there is: it carries no data, WidgetKit asks the app for it.
    public init() {}

    public var pushType: APNsPushType { .widgets }

    enum CodingKeys: String, CodingKey { case aps }
    enum APSKeys: String, CodingKey { case contentChanged = "content-changed" }

    /// Writes `{"aps":{"content-changed":true}}`, the only body WidgetKit reacts to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var aps = container.nestedContainer(keyedBy: APSKeys.self, forKey: .aps)
        try aps.encode(true, forKey: .contentChanged)
    }
}
