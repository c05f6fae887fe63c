// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A Live Activity update or end (push type `liveactivity`, topic
/// `<bundle id>.push-type.liveactivity`, apns-protocol.md §8), sent to the activity's push
/// token (or as a broadcast to its channel). `ContentState` is the app's
/// `ActivityAttributes.ContentState`.
///
/// **Dates inside the content state.** ActivityKit decodes `content-state` into the app's
/// `ContentState` with a `JSONDecoder` of its own, left at the default strategies: a `Date` is
/// read as seconds since 2001-01-01 (`.deferredToDate`), not UNIX seconds (apns-protocol.md
/// §8 gives the sources). `APNsNotification(token:payload:encoder:)` therefore encodes with a
/// plain `JSONEncoder()` by default, which writes dates the same way; pass an encoder of your
/// own only if the app's `ContentState` decodes dates itself (a custom `init(from:)`). The
/// `timestamp`, `stale-date` and `dismissal-date` keys are Apple's, always UNIX seconds,
/// whatever the encoder's date strategy.
///
/// APNsPriority: an update that shows an alert goes at 10 (it is meant to be seen now); one
/// without goes at 5, which Apple delivers opportunistically and does not count against the
/// activity's budget of priority-10 updates; an end goes at 10 (a finished activity should
/// not linger). Pass `priority:` to choose otherwise.
public struct APNsLiveActivityPayload<ContentState: Encodable & Sendable>: APNsPayload {
    /// `aps.event`: what the push does to the running activity (a start is
    /// `APNsLiveActivityStartPayload`, which needs more keys).
    public enum Event: String, Sendable, Hashable, Encodable {
        /// Replaces the activity's content state.
        case update
        /// Ends the activity, with its final content state.
        case end
    }

    /// Update or end.
    public var event: Event
    /// `content-state`: the app's `ContentState`, which ActivityKit decodes and shows.
    public var contentState: ContentState
    /// When the state was produced; ActivityKit ignores an update older than the one it shows.
    public var timestamp: Date
    /// When the system shows the activity as out of date.
    public var staleDate: Date?
    /// For an end: when the ended activity leaves the Lock Screen (now, if in the past).
    public var dismissalDate: Date?
    /// 0...1: which of the app's activities the Dynamic Island shows.
    public var relevanceScore: Double?
    /// An alert that lights the screen with the update.
    public var alert: APNsLiveActivityAlert?

    /// An update or end stamped now (`timestamp`), so it is never older than the state shown.
    public init(event: Event, contentState: ContentState, timestamp: Date = Date(), staleDate: Date? = nil, dismissalDate: Date? = nil,
                relevanceScore: Double? = nil, alert: APNsLiveActivityAlert? = nil) {
        self.event = event
        self.contentState = contentState
        self.timestamp = timestamp
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.alert = alert
    }

    public var pushType: APNsPushType { .liveactivity }
    public var defaultPriority: APNsPriority? { event == .update && alert == nil ? .conservePower : .immediate }

    /// Writes `aps` with `event`, `content-state` (encoded by the encoder given) and Apple's date
    /// keys in UNIX seconds, whatever the encoder's date strategy.
    public func encode(to encoder: any Encoder) throws {
        let common = APNsLiveActivityKeys.Common(event: event.rawValue, contentState: contentState, timestamp: timestamp, staleDate: staleDate,
                                                 dismissalDate: dismissalDate, relevanceScore: relevanceScore, alert: alert)
        try APNsLiveActivityKeys.encode(common, start: nil as APNsLiveActivityKeys.Start<APNsNoContent>?, to: encoder)
    }
}

/// A Live Activity started by a push (iOS 17.2 and later), sent to the app's push-to-start
/// token: the `ActivityAttributes` type name and values, the first content state, and the
/// alert Apple requires (without one the device drops the start). Dates in `ContentState` and
/// `Attributes` are encoded as `APNsLiveActivityPayload` describes; sent at priority 10.
public struct APNsLiveActivityStartPayload<Attributes: Encodable & Sendable, ContentState: Encodable & Sendable>: APNsPayload {
    /// How the started activity gets its later updates.
    public typealias Updates = APNsLiveActivityUpdates

    /// `attributes-type`: the name of the app's `ActivityAttributes` type.
    public var attributesType: String
    /// `attributes`: the values of the app's `ActivityAttributes`, fixed for the activity's life.
    public var attributes: Attributes
    /// `content-state`: the first `ContentState` shown.
    public var contentState: ContentState
    /// The alert the start shows; Apple requires one (apns-protocol.md §8).
    public var alert: APNsLiveActivityAlert
    /// Whether the device hands back an update token, subscribes to a channel, or neither.
    public var updates: Updates
    /// When the state was produced; later updates must carry a newer one.
    public var timestamp: Date
    /// When the system shows the activity as out of date.
    public var staleDate: Date?
    /// When an ended activity leaves the Lock Screen.
    public var dismissalDate: Date?
    /// 0...1: which of the app's activities the Dynamic Island shows.
    public var relevanceScore: Double?

    /// A start stamped now; encoding it throws for an empty `attributesType` or an alert without
    /// text, which the device would drop.
    public init(attributesType: String, attributes: Attributes, contentState: ContentState, alert: APNsLiveActivityAlert,
                updates: Updates = .none, timestamp: Date = Date(), staleDate: Date? = nil, dismissalDate: Date? = nil, relevanceScore: Double? = nil) {
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.alert = alert
        self.updates = updates
        self.timestamp = timestamp
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
    }

    public var pushType: APNsPushType { .liveactivity }
    public var defaultPriority: APNsPriority? { .immediate }

    /// Throws `APNsPayloadError.Code.invalidValue` for an empty `attributesType` or an alert
    /// with neither title nor body: the device could not start such an activity.
    public func encode(to encoder: any Encoder) throws {
        guard !attributesType.isEmpty else {
            throw APNsPayloadError(.invalidValue, "A Live Activity start needs attributes-type, the name of the app's ActivityAttributes type.")
        }
        guard alert.title != nil || alert.body != nil else {
            throw APNsPayloadError(.invalidValue, "A Live Activity start needs an alert with a title or a body; the device drops a start without one.")
        }
        let common = APNsLiveActivityKeys.Common(event: "start", contentState: contentState, timestamp: timestamp, staleDate: staleDate,
                                                 dismissalDate: dismissalDate, relevanceScore: relevanceScore, alert: alert)
        let start = APNsLiveActivityKeys.Start(attributesType: attributesType, attributes: attributes, updates: updates)
        try APNsLiveActivityKeys.encode(common, start: start, to: encoder)
    }
}

/// How a Live Activity started by a push gets its later updates.
public enum APNsLiveActivityUpdates: Sendable, Hashable {
    /// Nothing asked: the app sends its own token to the server.
    case none
    /// `input-push-token: 1`: the device sends the new activity's update token to the app.
    case pushToken
    /// `input-push-channel`: the activity subscribes to this broadcast channel id.
    case channel(String)
}

/// The alert of a Live Activity push. Unlike an alert push's (`APNsAlert`), a localized title
/// or body is a nested `{"loc-key": ..., "loc-args": [...]}` in place of the text, and the
/// sound sits inside `alert` (Apple, "Starting and updating Live Activities with ActivityKit
/// push notifications"; WWDC23 session 10185).
public struct APNsLiveActivityAlert: Encodable, Sendable, Hashable {
    /// A title or body: the text itself, or a key the device localizes.
    public enum Text: Encodable, Sendable, Hashable {
        /// Shown as is.
        case plain(String)
        /// A key of the app's `Localizable.strings` and the strings for its placeholders.
        case localized(key: String, arguments: [String] = [])

        enum Keys: String, CodingKey { case key = "loc-key", arguments = "loc-args" }

        /// A plain text as a string; a localized one as `{"loc-key": ..., "loc-args": [...]}`.
        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .plain(let text):
                var container = encoder.singleValueContainer()
                try container.encode(text)
            case .localized(let key, let arguments):
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(key, forKey: .key)
                try container.encode(arguments, forKey: .arguments)
            }
        }
    }

    /// The alert's title.
    public var title: Text?
    /// The alert's body.
    public var body: Text?
    /// The sound played with it; nil plays none.
    public var sound: APNsSound?

    /// An alert whose texts may be localized; a start needs a title or a body.
    public init(title: Text? = nil, body: Text? = nil, sound: APNsSound? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    /// Plain title and body text.
    public init(title: String, body: String? = nil, sound: APNsSound? = nil) {
        self.init(title: .plain(title), body: body.map(Text.plain), sound: sound)
    }
}

/// The `aps` keys of Live Activity pushes, shared by start, update and end.
enum APNsLiveActivityKeys {
    struct Common<ContentState: Encodable> {
        let event: String
        let contentState: ContentState
        let timestamp: Date
        let staleDate: Date?
        let dismissalDate: Date?
        let relevanceScore: Double?
        let alert: APNsLiveActivityAlert?
    }

    struct Start<Attributes: Encodable> {
        let attributesType: String
        let attributes: Attributes
        let updates: APNsLiveActivityUpdates
    }

    enum RootKeys: String, CodingKey { case aps }
    enum Keys: String, CodingKey {
        case timestamp, event, alert, attributes
        case contentState = "content-state", staleDate = "stale-date", dismissalDate = "dismissal-date", relevanceScore = "relevance-score"
        case attributesType = "attributes-type", inputPushToken = "input-push-token", inputPushChannel = "input-push-channel"
    }

    /// Apple's dates here are whole UNIX seconds (apns-protocol.md §8), never the encoder's
    /// date strategy. A `Date` can lie past Int's range (1e19 seconds from a flag or a file):
    /// such a date is clamped to Int's ends (and NaN is 0) instead of trapping; the lint then
    /// calls it out.
    static func unixSeconds(_ date: Date) -> Int {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        if seconds.isNaN { return 0 }
        if seconds >= 0x1p63 { return .max }
        if seconds < -0x1p63 { return .min }
        return Int(seconds)
    }

    static func encode<ContentState, Attributes>(_ common: Common<ContentState>, start: Start<Attributes>?, to encoder: any Encoder) throws {
        var root = encoder.container(keyedBy: RootKeys.self)
        var aps = root.nestedContainer(keyedBy: Keys.self, forKey: .aps)
        try aps.encode(unixSeconds(common.timestamp), forKey: .timestamp)
        try aps.encode(common.event, forKey: .event)
        try aps.encode(common.contentState, forKey: .contentState)
        try aps.encodeIfPresent(common.staleDate.map(unixSeconds), forKey: .staleDate)
        try aps.encodeIfPresent(common.dismissalDate.map(unixSeconds), forKey: .dismissalDate)
        if let score = common.relevanceScore {
            try APNsUnitInterval.check(score, "aps.relevance-score")
            try aps.encode(score, forKey: .relevanceScore)
        }
        try aps.encodeIfPresent(common.alert, forKey: .alert)
        guard let start else { return }
        try aps.encode(start.attributesType, forKey: .attributesType)
        try aps.encode(start.attributes, forKey: .attributes)
        switch start.updates {
        case .none: break
        case .pushToken: try aps.encode(1, forKey: .inputPushToken)
        case .channel(let channel): try aps.encode(channel, forKey: .inputPushChannel)
        }
    }
}
