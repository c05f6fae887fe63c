// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The payload lint's rules, one constant each (docs/lint.md is this list as a table; the
/// sources are docs/apns-protocol.md §11 unless said). Ids are stable: scripts filter on them.
public enum APNsLintRules {
    private static func rule(_ id: String, _ severity: APNsLintSeverity, answer: String = "200", device: String?, _ source: String = "§11") -> APNsLintRule {
        APNsLintRule(id: id, severity: severity, apnsAnswer: answer, device: device, source: source)
    }

    // MARK: Any push type (§11.1)
    /// `payload-not-object`: the payload is not a JSON object (or nests past 64); the device: dropped.
    public static let payloadNotObject = rule("payload-not-object", .error, answer: "not documented", device: "dropped", "§11.1")
    /// `payload-invalid-utf8`: the payload is not valid UTF-8; the device: dropped or shown garbled.
    public static let payloadInvalidUTF8 = rule("payload-invalid-utf8", .error, answer: "not documented", device: "dropped or shown garbled", "§11.1")
    /// `payload-number-range`: a number past what a Double holds (`1e400`); the device: dropped.
    public static let payloadNumberRange = rule("payload-number-range", .error, answer: "not documented", device: "dropped", "§11.1")
    /// `payload-duplicate-aps`: more than one `aps` key (this lint judges the first; Apple's parser may take the last); the device: may use the other aps.
    public static let payloadDuplicateAps = rule("payload-duplicate-aps", .error, answer: "not documented", device: "may use the other aps", "§11.1")
    /// `payload-too-large`: over 4,096 bytes (VoIP 5,120).
    public static let payloadTooLarge = rule("payload-too-large", .error, answer: "413 PayloadTooLarge", device: nil, "§1")
    /// `aps-not-object`: `aps` is not a dictionary; the device: nothing shown.
    public static let apsNotObject = rule("aps-not-object", .error, device: "nothing shown", "§11.1")
    /// `aps-unknown-key`: a key inside `aps` Apple does not define (`content_available`: "did you mean content-available?"); the device: key ignored.
    public static let apsUnknownKey = rule("aps-unknown-key", .warning, device: "key ignored", "§11.1")
    /// `topic-suffix`: the push type needs a topic suffix (`.voip`, `.push-type.liveactivity`, ...) the topic lacks.
    public static let topicSuffix = rule("topic-suffix", .error, answer: "400 (the mock: BadTopic)", device: nil, "§11.3")
    /// `topic-other-suffix`: an alert, background or mdm push to another push type's topic; the device: may be delayed or dropped.
    public static let topicOtherSuffix = rule("topic-other-suffix", .warning, answer: "400 or 200", device: "may be delayed or dropped", "§11.3")

    // MARK: Alerts and background pushes (§11.1)
    /// `alert-nothing-to-show`: an alert push without alert, badge or sound; the device: nothing shown.
    public static let alertNothingToShow = rule("alert-nothing-to-show", .warning, device: "nothing shown", "§11.1")
    /// `alert-only-content-available`: an alert push holding only `content-available`; the device: may be delayed or dropped.
    public static let alertOnlyContentAvailable = rule("alert-only-content-available", .warning, device: "may be delayed or dropped", "§11.1")
    /// `background-with-alert`: a background push with `alert`, `sound` or `badge`; the device: may be delayed or dropped.
    public static let backgroundWithAlert = rule("background-with-alert", .error, device: "may be delayed or dropped", "§11.1")
    /// `background-without-content-available`: a background push without `content-available: 1`; the device: app not woken.
    public static let backgroundWithoutContentAvailable = rule("background-without-content-available", .error, device: "app not woken", "§11.1")
    /// `background-priority`: a background push at priority 10; the device: may be delayed or dropped.
    public static let backgroundPriority = rule("background-priority", .error, answer: "200 (Apple calls it an error)", device: "may be delayed or dropped", "§11.1")
    /// `background-push-type-missing`: a background push (worked out from the payload: `content-available` and nothing to show) sent without `apns-push-type` (`apnskit lint` without `--push-type`); the device: not delivered on watchOS; may be delayed elsewhere.
    public static let backgroundPushTypeMissing = rule("background-push-type-missing", .warning, device: "not delivered on watchOS; may be delayed elsewhere", "§11.1")
    /// `flag-not-one`: `content-available` or `mutable-content` not the number 1 (`true`, `"1"`); the device: flag may be ignored.
    public static let flagNotOne = rule("flag-not-one", .warning, device: "flag may be ignored", "§11.1")
    /// `mutable-content-without-alert`: `mutable-content` on a notification without an alert; the device: service extension not run.
    public static let mutableContentWithoutAlert = rule("mutable-content-without-alert", .warning, device: "service extension not run", "§11.1")
    /// `alert-shape`: `alert` not text or a dictionary; `title`, `subtitle`, `body` not text; the device: may show no text.
    public static let alertShape = rule("alert-shape", .warning, device: "may show no text", "§11.1")
    /// `badge-not-integer`: `badge` not a whole number of 0 or more; the device: badge may not change.
    public static let badgeNotInteger = rule("badge-not-integer", .warning, device: "badge may not change", "§11.1")
    /// `sound-shape`: `sound` neither text nor a dictionary; no `name`; `critical` not 0/1; `volume` outside 0...1; the device: may play no sound.
    public static let soundShape = rule("sound-shape", .warning, device: "may play no sound", "§11.1")
    /// `interruption-level`: not `passive`, `active`, `time-sensitive` or `critical`; the device: shown at the default level.
    public static let interruptionLevel = rule("interruption-level", .warning, device: "shown at the default level", "§11.1")
    /// `relevance-score`: a notification's score not a number in 0...1; the device: score ignored.
    public static let relevanceScore = rule("relevance-score", .warning, device: "score ignored", "§11.1")
    /// `loc-shape`: a `*-loc-key` not text, `*-loc-args` not an array of strings, or args without their key; the device: may show no text.
    public static let locShape = rule("loc-shape", .warning, device: "may show no text", "§11.1")

    // MARK: Other push types (§11.3)
    /// `pushtotalk-priority`: a Push to Talk push not at priority 10; the device: may be delivered late.
    public static let pushToTalkPriority = rule("pushtotalk-priority", .error, device: "may be delivered late", "§11.3")
    /// `widgets-content-changed`: a widgets push without `content-changed: true`; the device: widget not reloaded.
    public static let widgetsContentChanged = rule("widgets-content-changed", .error, device: "widget not reloaded", "§11.3")

    // MARK: Live Activities (§11.2)
    /// `la-push-type`: a Live Activity payload (`event`, `content-state`) sent as another push type; the device: not given to ActivityKit.
    public static let laPushType = rule("la-push-type", .error, device: "not given to ActivityKit", "§11.2")
    /// `la-event`: `event` missing or not start, update, end; the device: dropped.
    public static let laEvent = rule("la-event", .error, device: "dropped", "§11.2")
    /// `la-timestamp-missing`: `timestamp` missing or not a number; the device: dropped.
    public static let laTimestampMissing = rule("la-timestamp-missing", .error, device: "dropped", "§11.2")
    /// `la-timestamp-milliseconds`: `timestamp` in milliseconds; the device: later updates ignored.
    public static let laTimestampMilliseconds = rule("la-timestamp-milliseconds", .error, device: "later updates ignored", "§11.2")
    /// `la-timestamp-future`: `timestamp` more than 5 minutes ahead of the clock; the device: later updates may be ignored.
    public static let laTimestampFuture = rule("la-timestamp-future", .warning, device: "later updates may be ignored", "§11.2")
    /// `la-timestamp-stale`: older than the newest timestamp already sent to the token (the mock knows it); the device: update ignored.
    public static let laTimestampStale = rule("la-timestamp-stale", .error, device: "update ignored", "§11.2")
    /// `la-content-state-missing`: a start or update without `content-state`; the device: dropped.
    public static let laContentStateMissing = rule("la-content-state-missing", .error, device: "dropped", "§11.2")
    /// `la-content-state-not-object`: `content-state` not an object; the device: dropped.
    public static let laContentStateNotObject = rule("la-content-state-not-object", .error, device: "dropped", "§11.2")
    /// `la-start-without-alert`: a start without `alert`; the device: dropped.
    public static let laStartWithoutAlert = rule("la-start-without-alert", .error, device: "dropped", "§8")
    /// `la-start-without-attributes-type`: a start without `attributes-type` (text); the device: dropped.
    public static let laStartWithoutAttributesType = rule("la-start-without-attributes-type", .error, device: "dropped", "§11.2")
    /// `la-start-without-attributes`: a start without `attributes` (an object); the device: dropped.
    public static let laStartWithoutAttributes = rule("la-start-without-attributes", .error, device: "dropped", "§11.2")
    /// `la-start-keys-outside-start`: `attributes-type`, `attributes`, `input-push-*` on an update or end; the device: keys ignored.
    public static let laStartKeysOutsideStart = rule("la-start-keys-outside-start", .warning, device: "keys ignored", "§11.2")
    /// `la-input-push`: `input-push-token` not 1, or both it and `input-push-channel`; the device: no update token or channel.
    public static let laInputPush = rule("la-input-push", .warning, device: "no update token or channel", "§11.2")
    /// `la-date-field`: `stale-date` or `dismissal-date` not a number, or in milliseconds; the device: dropped.
    public static let laDateField = rule("la-date-field", .error, device: "dropped", "§11.2")
    /// `la-stale-date-past`: `stale-date` in the past; the device: shown as stale at once.
    public static let laStaleDatePast = rule("la-stale-date-past", .warning, device: "shown as stale at once", "§11.2")
    /// `la-dismissal-date-past`: `dismissal-date` in the past; the device: removed at once.
    public static let laDismissalDatePast = rule("la-dismissal-date-past", .warning, device: "removed at once", "§11.2")
    /// `la-relevance-score-type`: a Live Activity's `relevance-score` not a number; the device: score ignored.
    public static let laRelevanceScoreType = rule("la-relevance-score-type", .warning, device: "score ignored", "§11.2")
    /// `la-priority-budget`: an update without an alert at priority 10; the device: throttled past the budget.
    public static let laPriorityBudget = rule("la-priority-budget", .warning, device: "throttled past the budget", "§8")
    /// `la-collapse-id-on-start`: a start with `apns-collapse-id`; the device: may be replaced before it starts.
    public static let laCollapseIDOnStart = rule("la-collapse-id-on-start", .warning, device: "may be replaced before it starts", "§11.2")
    /// `la-date-string`: without a schema: ISO 8601 text in `content-state` or `attributes`; the device: may be dropped.
    public static let laDateString = rule("la-date-string", .warning, device: "may be dropped", "§8")

    // MARK: Live Activities against --attributes-schema (§11.2)
    /// `la-schema-swapped`: `content-state` holds the attributes' fields (or the reverse on a start); the device: dropped.
    public static let laSchemaSwapped = rule("la-schema-swapped", .error, device: "dropped", "§11.2")
    /// `la-schema-missing-field`: a field the schema has as not optional is missing; the device: dropped.
    public static let laSchemaMissingField = rule("la-schema-missing-field", .error, device: "dropped", "§11.2")
    /// `la-schema-type`: a value of another type than the schema's; the device: dropped.
    public static let laSchemaType = rule("la-schema-type", .error, device: "dropped", "§11.2")
    /// `la-schema-null`: `null` for a field that is not optional; the device: dropped.
    public static let laSchemaNull = rule("la-schema-null", .error, device: "dropped", "§11.2")
    /// `la-schema-unknown-field`: a key the schema's type does not have; the device: field ignored.
    public static let laSchemaUnknownField = rule("la-schema-unknown-field", .warning, device: "field ignored", "§11.2")
    /// `la-schema-date-string`: a `Date` field given as text; the device: dropped.
    public static let laSchemaDateString = rule("la-schema-date-string", .error, device: "dropped", "§8")
    /// `la-schema-date-unix`: a `Date` field given as UNIX seconds or milliseconds; the device: date about 31 years late.
    public static let laSchemaDateUnix = rule("la-schema-date-unix", .warning, device: "date about 31 years late", "§8")

    /// Every rule, in the order docs/lint.md lists them.
    public static let all: [APNsLintRule] = [
        payloadNotObject, payloadInvalidUTF8, payloadNumberRange, payloadDuplicateAps, payloadTooLarge, apsNotObject, apsUnknownKey, topicSuffix, topicOtherSuffix,
        alertNothingToShow, alertOnlyContentAvailable, backgroundWithAlert, backgroundWithoutContentAvailable, backgroundPriority, backgroundPushTypeMissing,
        flagNotOne, mutableContentWithoutAlert, alertShape, badgeNotInteger, soundShape, interruptionLevel, relevanceScore, locShape,
        pushToTalkPriority, widgetsContentChanged,
        laPushType, laEvent, laTimestampMissing, laTimestampMilliseconds, laTimestampFuture, laTimestampStale,
        laContentStateMissing, laContentStateNotObject, laStartWithoutAlert, laStartWithoutAttributesType, laStartWithoutAttributes,
        laStartKeysOutsideStart, laInputPush, laDateField, laStaleDatePast, laDismissalDatePast, laRelevanceScoreType,
        laPriorityBudget, laCollapseIDOnStart, laDateString,
        laSchemaSwapped, laSchemaMissingField, laSchemaType, laSchemaNull, laSchemaUnknownField, laSchemaDateString, laSchemaDateUnix,
    ]
}
