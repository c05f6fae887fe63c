// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The payload lint's rules, one constant each (docs/lint.md is this list as a table; the
/// sources are docs/apns-protocol.md §11 unless said). Ids are stable: scripts filter on them.
public enum APNsLintRules {
    private static func rule(_ id: String, _ severity: APNsLintSeverity, answer: String = "200", device: String?, _ source: String = "§11") -> APNsLintRule {
        APNsLintRule(id: id, severity: severity, apnsAnswer: answer, device: device, source: source)
    }

    // MARK: Any push type (§11.1)
    public static let payloadNotObject = rule("payload-not-object", .error, answer: "not documented", device: "dropped", "§11.1")
    public static let payloadInvalidUTF8 = rule("payload-invalid-utf8", .error, answer: "not documented", device: "dropped or shown garbled", "§11.1")
    public static let payloadNumberRange = rule("payload-number-range", .error, answer: "not documented", device: "dropped", "§11.1")
    public static let payloadDuplicateAps = rule("payload-duplicate-aps", .error, answer: "not documented", device: "may use the other aps", "§11.1")
    public static let payloadTooLarge = rule("payload-too-large", .error, answer: "413 PayloadTooLarge", device: nil, "§1")
    public static let apsNotObject = rule("aps-not-object", .error, device: "nothing shown", "§11.1")
    public static let apsUnknownKey = rule("aps-unknown-key", .warning, device: "key ignored", "§11.1")
    public static let topicSuffix = rule("topic-suffix", .error, answer: "400 (the mock: BadTopic)", device: nil, "§11.3")
    public static let topicOtherSuffix = rule("topic-other-suffix", .warning, answer: "400 or 200", device: "may be delayed or dropped", "§11.3")

    // MARK: Alerts and background pushes (§11.1)
    public static let alertNothingToShow = rule("alert-nothing-to-show", .warning, device: "nothing shown", "§11.1")
    public static let alertOnlyContentAvailable = rule("alert-only-content-available", .warning, device: "may be delayed or dropped", "§11.1")
    public static let backgroundWithAlert = rule("background-with-alert", .error, device: "may be delayed or dropped", "§11.1")
    public static let backgroundWithoutContentAvailable = rule("background-without-content-available", .error, device: "app not woken", "§11.1")
    public static let backgroundPriority = rule("background-priority", .error, answer: "200 (Apple calls it an error)", device: "may be delayed or dropped", "§11.1")
    public static let backgroundPushTypeMissing = rule("background-push-type-missing", .warning, device: "not delivered on watchOS; may be delayed elsewhere", "§11.1")
    public static let flagNotOne = rule("flag-not-one", .warning, device: "flag may be ignored", "§11.1")
    public static let mutableContentWithoutAlert = rule("mutable-content-without-alert", .warning, device: "service extension not run", "§11.1")
    public static let alertShape = rule("alert-shape", .warning, device: "may show no text", "§11.1")
    public static let badgeNotInteger = rule("badge-not-integer", .warning, device: "badge may not change", "§11.1")
    public static let soundShape = rule("sound-shape", .warning, device: "may play no sound", "§11.1")
    public static let interruptionLevel = rule("interruption-level", .warning, device: "shown at the default level", "§11.1")
    public static let relevanceScore = rule("relevance-score", .warning, device: "score ignored", "§11.1")
    public static let locShape = rule("loc-shape", .warning, device: "may show no text", "§11.1")

    // MARK: Other push types (§11.3)
    public static let pushToTalkPriority = rule("pushtotalk-priority", .error, device: "may be delivered late", "§11.3")
    public static let widgetsContentChanged = rule("widgets-content-changed", .error, device: "widget not reloaded", "§11.3")

    // MARK: Live Activities (§11.2)
    public static let laPushType = rule("la-push-type", .error, device: "not given to ActivityKit", "§11.2")
    public static let laEvent = rule("la-event", .error, device: "dropped", "§11.2")
    public static let laTimestampMissing = rule("la-timestamp-missing", .error, device: "dropped", "§11.2")
    public static let laTimestampMilliseconds = rule("la-timestamp-milliseconds", .error, device: "later updates ignored", "§11.2")
    public static let laTimestampFuture = rule("la-timestamp-future", .warning, device: "later updates may be ignored", "§11.2")
    public static let laTimestampStale = rule("la-timestamp-stale", .error, device: "update ignored", "§11.2")
    public static let laContentStateMissing = rule("la-content-state-missing", .error, device: "dropped", "§11.2")
    public static let laContentStateNotObject = rule("la-content-state-not-object", .error, device: "dropped", "§11.2")
    public static let laStartWithoutAlert = rule("la-start-without-alert", .error, device: "dropped", "§8")
    public static let laStartWithoutAttributesType = rule("la-start-without-attributes-type", .error, device: "dropped", "§11.2")
    public static let laStartWithoutAttributes = rule("la-start-without-attributes", .error, device: "dropped", "§11.2")
    public static let laStartKeysOutsideStart = rule("la-start-keys-outside-start", .warning, device: "keys ignored", "§11.2")
    public static let laInputPush = rule("la-input-push", .warning, device: "no update token or channel", "§11.2")
    public static let laDateField = rule("la-date-field", .error, device: "dropped", "§11.2")
    public static let laStaleDatePast = rule("la-stale-date-past", .warning, device: "shown as stale at once", "§11.2")
    public static let laDismissalDatePast = rule("la-dismissal-date-past", .warning, device: "removed at once", "§11.2")
    public static let laRelevanceScoreType = rule("la-relevance-score-type", .warning, device: "score ignored", "§11.2")
    public static let laPriorityBudget = rule("la-priority-budget", .warning, device: "throttled past the budget", "§8")
    public static let laCollapseIDOnStart = rule("la-collapse-id-on-start", .warning, device: "may be replaced before it starts", "§11.2")
    public static let laDateString = rule("la-date-string", .warning, device: "may be dropped", "§8")

    // MARK: Live Activities against --attributes-schema (§11.2)
    public static let laSchemaSwapped = rule("la-schema-swapped", .error, device: "dropped", "§11.2")
    public static let laSchemaMissingField = rule("la-schema-missing-field", .error, device: "dropped", "§11.2")
    public static let laSchemaType = rule("la-schema-type", .error, device: "dropped", "§11.2")
    public static let laSchemaNull = rule("la-schema-null", .error, device: "dropped", "§11.2")
    public static let laSchemaUnknownField = rule("la-schema-unknown-field", .warning, device: "field ignored", "§11.2")
    public static let laSchemaDateString = rule("la-schema-date-string", .error, device: "dropped", "§8")
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
