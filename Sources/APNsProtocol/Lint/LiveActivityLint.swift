// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The rules for Live Activity pushes (apns-protocol.md §8, §11.2): the keys ActivityKit
/// needs per event, its clocks (UNIX seconds, newer than the last update), the start's extra
/// keys, the update budget; and with a schema, the app's own fields (SchemaLint.swift).
extension LintPass {
    /// A UNIX time in seconds past this is in milliseconds (1e11 seconds is the year 5138).
    static let millisecondsThreshold = 100_000_000_000.0
    /// How far ahead of the clock a timestamp may be before it is called "in the future".
    static let clockSkewAllowance = 300.0

    /// A JSON number of seconds as a finding repeats it: whole seconds when they fit an Int,
    /// else as Swift writes the Double (`1e+19`). A payload's number can be anything JSON
    /// spells (`1e19`, `-1e308`), so a plain `Int(seconds)` would trap the lint, `push` and the
    /// mock on one hostile value.
    static func shown(_ seconds: Double) -> String {
        Int(exactly: seconds.rounded(.towardZero)).map(String.init) ?? String(seconds)
    }

    mutating func checkLiveActivity() {
        let eventValue = aps("event")
        let event = eventValue?.stringValue.flatMap(LiveActivityPayload.Event.init(rawValue:))
        if event == nil {
            add(APNsLintRules.laEvent, "aps.event", eventValue == nil
                ? "aps.event is missing; a Live Activity push says start, update or end. Add it."
                : "aps.event is \(eventValue!.stringValue.map { "\"\($0)\"" } ?? eventValue!.kindName); it must be start, update or end.")
        }
        checkTimestamp()
        checkContentState(event: event)
        if event == .start { checkStart() } else { checkStartOnlyKeys(event: event) }
        checkDates()
        if let score = aps("relevance-score"), score.number == nil {
            add(APNsLintRules.laRelevanceScoreType, "aps.relevance-score", "aps.relevance-score is \(score.kindName); it is a number (higher: shown first in the Dynamic Island among the app's activities).")
        }
        if event == .update, request.priority == 10, aps("alert") == nil {
            add(APNsLintRules.laPriorityBudget, "apns-priority", "Priority 10 Live Activity updates are delivered at once but count against the activity's update budget, and updates past it are throttled; send routine updates at priority 5 and keep 10 for ones that must show now (or that carry an alert).")
        }
        if event == .start, let collapseID = request.collapseID {
            add(APNsLintRules.laCollapseIDOnStart, "apns-collapse-id", "A start sent with apns-collapse-id \"\(collapseID)\" can be replaced by a later push with the same id before it is delivered, and then the activity never starts; send starts without a collapse id.")
        }
        if request.schema == nil {
            for name in ["content-state", "attributes"] {
                if let value = aps(name) { findDateStrings(value, path: "aps.\(name)") }
            }
        } else {
            checkAgainstSchema(event: event)
        }
    }

    private mutating func checkTimestamp() {
        guard let value = aps("timestamp") else {
            add(APNsLintRules.laTimestampMissing, "aps.timestamp", "aps.timestamp is missing; ActivityKit orders updates by it. Add the time of sending in UNIX seconds.")
            return
        }
        guard let seconds = value.number else {
            add(APNsLintRules.laTimestampMissing, "aps.timestamp", "aps.timestamp is \(value.kindName); it must be a number, the time of sending in UNIX seconds.")
            return
        }
        liveActivityTimestamp = Int(exactly: seconds.rounded(.down))
        if seconds >= Self.millisecondsThreshold {
            add(APNsLintRules.laTimestampMilliseconds, "aps.timestamp", "aps.timestamp \(Self.shown(seconds)) is in milliseconds; ActivityKit reads UNIX seconds, and every later update in seconds would look older and be ignored. Divide by 1000.")
            return
        }
        if seconds > request.now.timeIntervalSince1970 + Self.clockSkewAllowance {
            add(APNsLintRules.laTimestampFuture, "aps.timestamp", "aps.timestamp \(Self.shown(seconds)) is \(Self.shown(seconds - request.now.timeIntervalSince1970)) seconds in the future; later updates stamped with the real time would look older and be ignored. Stamp updates with the time of sending.")
        }
        if let previous = request.previousTimestamp, seconds.rounded(.towardZero) < Double(previous) {
            add(APNsLintRules.laTimestampStale, "aps.timestamp", "aps.timestamp \(Self.shown(seconds)) is older than \(previous), the timestamp of an update already sent to this activity; ActivityKit ignores it. Stamp each update with the time of sending.")
        }
    }

    private mutating func checkContentState(event: LiveActivityPayload.Event?) {
        guard let state = aps("content-state") else {
            if event == .start || event == .update {
                add(APNsLintRules.laContentStateMissing, "aps.content-state", "aps.content-state is missing; a Live Activity \(event!.rawValue) carries the activity's ContentState. Add it (an object with the app's ContentState fields).")
            }
            return
        }
        if case .object = state { return }
        add(APNsLintRules.laContentStateNotObject, "aps.content-state", "aps.content-state is \(state.kindName); it must be an object with the app's ContentState fields.")
    }

    private mutating func checkStart() {
        if aps("alert") == nil {
            add(APNsLintRules.laStartWithoutAlert, "aps.alert", "A push-to-start without aps.alert is dropped by the device; add an alert with a title and body.")
        }
        if aps("attributes-type")?.stringValue == nil {
            add(APNsLintRules.laStartWithoutAttributesType, "aps.attributes-type", "A start needs aps.attributes-type, the name of the app's ActivityAttributes type (text); add it.")
        }
        if case .object? = aps("attributes") {} else {
            add(APNsLintRules.laStartWithoutAttributes, "aps.attributes", "A start needs aps.attributes, an object with the app's ActivityAttributes fields; add it.")
        }
        let token = aps("input-push-token")
        if let token, token.integer != 1 {
            add(APNsLintRules.laInputPush, "aps.input-push-token", "aps.input-push-token is \(token.kindName); it is the number 1 (ask the started activity for an update token).")
        }
        if token != nil, aps("input-push-channel") != nil {
            add(APNsLintRules.laInputPush, "aps.input-push-channel", "Give either input-push-token or input-push-channel, not both: an activity is updated through its token or a broadcast channel.")
        }
    }

    private mutating func checkStartOnlyKeys(event: LiveActivityPayload.Event?) {
        guard let event else { return }
        let startOnly = ["attributes-type", "attributes", "input-push-token", "input-push-channel"].filter { aps($0) != nil }
        if !startOnly.isEmpty {
            add(APNsLintRules.laStartKeysOutsideStart, "aps.\(startOnly[0])", "\(startOnly.map { "aps.\($0)" }.joined(separator: ", ")) belong to a start; an \(event.rawValue) ignores them. Drop them (an activity's attributes never change after it starts).")
        }
    }

    private mutating func checkDates() {
        for (name, rule) in [("stale-date", APNsLintRules.laStaleDatePast), ("dismissal-date", APNsLintRules.laDismissalDatePast)] {
            guard let value = aps(name) else { continue }
            guard let seconds = value.number else {
                add(APNsLintRules.laDateField, "aps.\(name)", "aps.\(name) is \(value.kindName); it must be a number, UNIX seconds.")
                continue
            }
            if seconds >= Self.millisecondsThreshold {
                add(APNsLintRules.laDateField, "aps.\(name)", "aps.\(name) \(Self.shown(seconds)) is in milliseconds; it must be UNIX seconds. Divide by 1000.")
            } else if seconds < request.now.timeIntervalSince1970 {
                add(rule, "aps.\(name)", name == "stale-date"
                    ? "aps.stale-date \(Self.shown(seconds)) is in the past: the activity is shown as out of date at once. Set it to when the content stops being current."
                    : "aps.dismissal-date \(Self.shown(seconds)) is in the past: the ended activity leaves the Lock Screen at once. If that is meant, send no date or the current time; otherwise set when it should go.")
            }
        }
    }

    /// Without a schema: text that looks like an ISO-8601 date where ActivityKit's decoder
    /// reads a `Date` as a number (§8), so it is a risk, not a certainty.
    private mutating func findDateStrings(_ value: JSONValue, path: String) {
        switch value {
        case .string(let text) where Self.looksLikeISODate(text):
            add(APNsLintRules.laDateString, path, "\(path) is the date text \"\(text)\"; if the app's field is a Date, ActivityKit's decoder reads a number (seconds since 2001-01-01), fails on text and drops the update. Send the number, or check with --attributes-schema.")
        case .object(let members):
            for (key, member) in members { findDateStrings(member, path: "\(path).\(key)") }
        case .array(let items):
            for (index, item) in items.enumerated() { findDateStrings(item, path: "\(path)[\(index)]") }
        default: break
        }
    }

    /// `YYYY-MM-DDTHH:MM` at the start: the shape ISO-8601 date-times share.
    static func looksLikeISODate(_ text: String) -> Bool {
        let bytes = Array(text.utf8.prefix(16))
        guard bytes.count == 16 else { return false }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15]
        return digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) }
            && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-") && bytes[10] == UInt8(ascii: "T") && bytes[13] == UInt8(ascii: ":")
    }
}
