// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation
import Testing

/// Each lint rule with a request that trips it and one beside it that does not (docs/lint.md).
@Suite struct PayloadLintTests {
    /// A fixed clock: 2025-11-24 16:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_764_000_000)
    static let ts = 1_764_000_000
    static let laTopic = "com.example.app.push-type.liveactivity"
    static let schema = try! APNsActivitySchema(parsing: Array(#"{"attributes": {"homeTeam": "String"}, "content-state": {"score": "Int", "note": "String?", "kickoff": "Date"}}"#.utf8))

    struct Case: CustomTestStringConvertible, Sendable {
        let rule: APNsLintRule
        let trips: APNsLintRequest
        let clean: APNsLintRequest
        var testDescription: String { rule.id }
    }

    static func request(_ json: String, _ type: APNsPushType? = .alert, topic: String? = nil, priority: Int? = nil, collapseID: String? = nil,
                        schema: APNsActivitySchema? = nil, previous: Int? = nil) -> APNsLintRequest {
        APNsLintRequest(payload: Array(json.utf8), pushType: type, topic: topic, priority: priority, collapseID: collapseID, schema: schema,
                        previousTimestamp: previous, now: now)
    }

    /// A Live Activity request: `aps` members given as JSON text after the timestamp.
    static func live(_ members: String, timestamp: String = String(ts), priority: Int = 5, collapseID: String? = nil,
                     schema: APNsActivitySchema? = nil, previous: Int? = nil, type: APNsPushType = .liveactivity) -> APNsLintRequest {
        request(#"{"aps": {"timestamp": \#(timestamp)\#(members.isEmpty ? "" : ", " + members)}}"#, type, topic: type == .liveactivity ? laTopic : nil,
                priority: priority, collapseID: collapseID, schema: schema, previous: previous)
    }

    static let update = #""event": "update", "content-state": {"score": 1}"#
    static let start = #""event": "start", "content-state": {"score": 0, "kickoff": 785000000}, "attributes-type": "MatchAttributes", "attributes": {"homeTeam": "A"}, "alert": {"title": "Kick-off", "body": "A v B"}"#
    static let bigBody = String(repeating: "x", count: 4_200)

    static let cases: [Case] = [
        Case(rule: APNsLintRules.payloadNotObject, trips: request("[1, 2]"), clean: request(#"{"aps": {"alert": "hi"}}"#)),
        Case(rule: APNsLintRules.payloadInvalidUTF8,
             trips: APNsLintRequest(payload: Array(#"{"aps": {"alert": "caf"#.utf8) + [0xC3, 0x28] + Array(#""}}"#.utf8), pushType: .alert, now: now),
             clean: request(#"{"aps": {"alert": "café \u00e9"}}"#)),
        Case(rule: APNsLintRules.payloadNumberRange, trips: request(#"{"aps": {"alert": "hi", "badge": 1e400}}"#),
             clean: request(#"{"aps": {"alert": "hi", "badge": 1e308}}"#)),
        Case(rule: APNsLintRules.payloadDuplicateAps, trips: request(#"{"aps": {"alert": "checked"}, "aps": {"alert": "delivered?"}}"#),
             clean: request(#"{"aps": {"alert": "hi"}, "data": {"aps": 1}}"#)),
        Case(rule: APNsLintRules.payloadTooLarge, trips: request(#"{"aps": {"alert": "\#(bigBody)"}}"#),
             clean: request(#"{"aps": {}, "call": "\#(bigBody)"}"#, .voip, topic: "com.example.app.voip")),
        Case(rule: APNsLintRules.apsNotObject, trips: request(#"{"aps": "hi"}"#), clean: request(#"{"aps": {"alert": "hi"}}"#)),
        Case(rule: APNsLintRules.apsUnknownKey, trips: request(#"{"aps": {"alert": "hi", "content_available": 1}}"#),
             clean: request(#"{"aps": {"alert": "hi"}, "content_available": 1}"#)),
        Case(rule: APNsLintRules.topicSuffix, trips: request(#"{"aps": {}}"#, .voip, topic: "com.example.app"),
             clean: request(#"{"aps": {}}"#, .voip, topic: "com.example.app.voip")),
        Case(rule: APNsLintRules.topicOtherSuffix, trips: request(#"{"aps": {"alert": "hi"}}"#, topic: "com.example.app.voip"),
             clean: request(#"{"aps": {"alert": "hi"}}"#, topic: "com.example.app")),
        Case(rule: APNsLintRules.alertNothingToShow, trips: request(#"{"aps": {"category": "c"}}"#), clean: request(#"{"aps": {"alert": "hi", "category": "c"}}"#)),
        Case(rule: APNsLintRules.alertOnlyContentAvailable, trips: request(#"{"aps": {"content-available": 1}}"#),
             clean: request(#"{"aps": {"content-available": 1}}"#, .background, priority: 5)),
        Case(rule: APNsLintRules.backgroundWithAlert, trips: request(#"{"aps": {"content-available": 1, "alert": "hi"}}"#, .background, priority: 5),
             clean: request(#"{"aps": {"content-available": 1}}"#, .background, priority: 5)),
        Case(rule: APNsLintRules.backgroundWithoutContentAvailable, trips: request(#"{"aps": {}, "sync": 1}"#, .background, priority: 5),
             clean: request(#"{"aps": {"content-available": 1}, "sync": 1}"#, .background, priority: 5)),
        Case(rule: APNsLintRules.backgroundPriority, trips: request(#"{"aps": {"content-available": 1}}"#, .background, priority: 10),
             clean: request(#"{"aps": {"content-available": 1}}"#, .background, priority: 5)),
        Case(rule: APNsLintRules.backgroundPushTypeMissing, trips: request(#"{"aps": {"content-available": 1}}"#, nil, priority: 5),
             clean: request(#"{"aps": {"content-available": 1}}"#, .background, priority: 5)),
        Case(rule: APNsLintRules.flagNotOne, trips: request(#"{"aps": {"alert": "hi", "mutable-content": true}}"#),
             clean: request(#"{"aps": {"alert": "hi", "mutable-content": 1}}"#)),
        Case(rule: APNsLintRules.mutableContentWithoutAlert, trips: request(#"{"aps": {"mutable-content": 1, "badge": 1}}"#),
             clean: request(#"{"aps": {"mutable-content": 1, "alert": {"title": "t", "body": "b"}}}"#)),
        Case(rule: APNsLintRules.alertShape, trips: request(#"{"aps": {"alert": {"title": 5, "body": "b"}}}"#),
             clean: request(#"{"aps": {"alert": {"title": "5", "body": "b"}}}"#)),
        Case(rule: APNsLintRules.badgeNotInteger, trips: request(#"{"aps": {"badge": "3"}}"#), clean: request(#"{"aps": {"badge": 3}}"#)),
        Case(rule: APNsLintRules.soundShape, trips: request(#"{"aps": {"alert": "hi", "sound": {"critical": 1, "name": "a.caf", "volume": 1.5}}}"#),
             clean: request(#"{"aps": {"alert": "hi", "sound": {"critical": 1, "name": "a.caf", "volume": 0.5}}}"#)),
        Case(rule: APNsLintRules.interruptionLevel, trips: request(#"{"aps": {"alert": "hi", "interruption-level": "urgent"}}"#),
             clean: request(#"{"aps": {"alert": "hi", "interruption-level": "time-sensitive"}}"#)),
        Case(rule: APNsLintRules.relevanceScore, trips: request(#"{"aps": {"alert": "hi", "relevance-score": 5}}"#),
             clean: request(#"{"aps": {"alert": "hi", "relevance-score": 0.5}}"#)),
        Case(rule: APNsLintRules.locShape, trips: request(#"{"aps": {"alert": {"loc-key": "K", "loc-args": [1]}}}"#),
             clean: request(#"{"aps": {"alert": {"loc-key": "K", "loc-args": ["1"]}}}"#)),
        Case(rule: APNsLintRules.pushToTalkPriority, trips: request(#"{"aps": {}, "channel": "c"}"#, .pushtotalk, topic: "com.example.app.voip-ptt", priority: 5),
             clean: request(#"{"aps": {}, "channel": "c"}"#, .pushtotalk, topic: "com.example.app.voip-ptt", priority: 10)),
        Case(rule: APNsLintRules.widgetsContentChanged, trips: request(#"{"aps": {}}"#, .widgets, topic: "com.example.app.push-type.widgets"),
             clean: request(#"{"aps": {"content-changed": true}}"#, .widgets, topic: "com.example.app.push-type.widgets")),
        Case(rule: APNsLintRules.laPushType, trips: live(update, type: .alert), clean: live(update)),
        Case(rule: APNsLintRules.laEvent, trips: live(#""event": "refresh", "content-state": {"score": 1}"#), clean: live(update)),
        Case(rule: APNsLintRules.laTimestampMissing, trips: request(#"{"aps": {\#(update)}}"#, .liveactivity, topic: laTopic, priority: 5), clean: live(update)),
        Case(rule: APNsLintRules.laTimestampMilliseconds, trips: live(update, timestamp: String(ts * 1000)), clean: live(update)),
        Case(rule: APNsLintRules.laTimestampFuture, trips: live(update, timestamp: String(ts + 3600)), clean: live(update, timestamp: String(ts + 60))),
        Case(rule: APNsLintRules.laTimestampStale, trips: live(update, previous: ts + 10), clean: live(update, previous: ts)),
        Case(rule: APNsLintRules.laContentStateMissing, trips: live(#""event": "update""#), clean: live(#""event": "end""#)),
        Case(rule: APNsLintRules.laContentStateNotObject, trips: live(#""event": "update", "content-state": []"#), clean: live(update)),
        Case(rule: APNsLintRules.laStartWithoutAlert, trips: live(#""event": "start", "content-state": {}, "attributes-type": "T", "attributes": {}"#, priority: 10),
             clean: live(start, priority: 10)),
        Case(rule: APNsLintRules.laStartWithoutAttributesType, trips: live(#""event": "start", "content-state": {}, "attributes": {}, "alert": {"title": "t", "body": "b"}"#, priority: 10),
             clean: live(start, priority: 10)),
        Case(rule: APNsLintRules.laStartWithoutAttributes, trips: live(#""event": "start", "content-state": {}, "attributes-type": "T", "alert": {"title": "t", "body": "b"}"#, priority: 10),
             clean: live(start, priority: 10)),
        Case(rule: APNsLintRules.laStartKeysOutsideStart, trips: live(update + #", "attributes-type": "T""#), clean: live(update)),
        Case(rule: APNsLintRules.laInputPush, trips: live(start + #", "input-push-token": 2"#, priority: 10), clean: live(start + #", "input-push-token": 1"#, priority: 10)),
        Case(rule: APNsLintRules.laDateField, trips: live(update + #", "stale-date": "tomorrow""#), clean: live(update + #", "stale-date": \#(ts + 600)"#)),
        Case(rule: APNsLintRules.laStaleDatePast, trips: live(update + #", "stale-date": \#(ts - 100)"#), clean: live(update + #", "stale-date": \#(ts + 600)"#)),
        Case(rule: APNsLintRules.laDismissalDatePast, trips: live(#""event": "end", "dismissal-date": \#(ts - 100)"#),
             clean: live(#""event": "end", "dismissal-date": \#(ts + 600)"#)),
        Case(rule: APNsLintRules.laRelevanceScoreType, trips: live(update + #", "relevance-score": "high""#), clean: live(update + #", "relevance-score": 50"#)),
        Case(rule: APNsLintRules.laPriorityBudget, trips: live(update, priority: 10), clean: live(update, priority: 5)),
        Case(rule: APNsLintRules.laCollapseIDOnStart, trips: live(start, priority: 10, collapseID: "match-1"), clean: live(start, priority: 10)),
        Case(rule: APNsLintRules.laDateString, trips: live(#""event": "update", "content-state": {"eta": "2025-11-25T10:00:00Z"}"#),
             clean: live(#""event": "update", "content-state": {"eta": 785000000}"#)),
        Case(rule: APNsLintRules.laSchemaSwapped, trips: live(#""event": "update", "content-state": {"homeTeam": "A"}"#, schema: schema),
             clean: live(#""event": "update", "content-state": {"score": 1, "kickoff": 785000000}"#, schema: schema)),
        Case(rule: APNsLintRules.laSchemaMissingField, trips: live(#""event": "update", "content-state": {"kickoff": 785000000}"#, schema: schema),
             clean: live(#""event": "update", "content-state": {"score": 1, "kickoff": 785000000}"#, schema: schema)),
        Case(rule: APNsLintRules.laSchemaType, trips: live(#""event": "update", "content-state": {"score": "1", "kickoff": 785000000}"#, schema: schema),
             clean: live(#""event": "update", "content-state": {"score": 1, "kickoff": 785000000}"#, schema: schema)),
        Case(rule: APNsLintRules.laSchemaNull, trips: live(#""event": "update", "content-state": {"score": null, "kickoff": 785000000}"#, schema: schema),
             clean: live(#""event": "update", "content-state": {"score": 1, "note": null, "kickoff": 785000000}"#, schema: schema)),
        Case(rule: APNsLintRules.laSchemaUnknownField, trips: live(#""event": "update", "content-state": {"score": 1, "Score": 2, "kickoff": 785000000}"#, schema: schema),
             clean: live(#""event": "update", "content-state": {"score": 1, "kickoff": 785000000}"#, schema: schema)),
        Case(rule: APNsLintRules.laSchemaDateString, trips: live(#""event": "update", "content-state": {"score": 1, "kickoff": "2025-11-25T10:00:00Z"}"#, schema: schema),
             clean: live(#""event": "update", "content-state": {"score": 1, "kickoff": 785000000}"#, schema: schema)),
        Case(rule: APNsLintRules.laSchemaDateUnix, trips: live(#""event": "update", "content-state": {"score": 1, "kickoff": 1764000000}"#, schema: schema),
             clean: live(#""event": "update", "content-state": {"score": 1, "kickoff": 785000000}"#, schema: schema)),
    ]

    static func ids(_ request: APNsLintRequest) -> [String] { APNsPayloadLint.lint(request).findings.map(\.rule.id) }

    @Test(arguments: cases)
    func ruleTrips(_ testCase: Case) {
        let found = APNsPayloadLint.lint(testCase.trips).findings.filter { $0.rule == testCase.rule }
        #expect(!found.isEmpty, "\(testCase.rule.id) did not trip; found \(Self.ids(testCase.trips))")
        for finding in found {
            // One sentence that says what is wrong and what to do, ending as a sentence does.
            #expect(finding.message.count > 30 && (finding.message.hasSuffix(".") || finding.message.hasSuffix(")")), "\(finding.message)")
        }
    }

    @Test(arguments: cases)
    func ruleStaysQuiet(_ testCase: Case) {
        #expect(!Self.ids(testCase.clean).contains(testCase.rule.id), "\(testCase.rule.id) tripped on its clean payload")
    }

    @Test func everyRuleHasACase() {
        #expect(Set(Self.cases.map(\.rule.id)) == Set(APNsLintRules.all.map(\.id)))
        #expect(Set(APNsLintRules.all.map(\.id)).count == APNsLintRules.all.count, "rule ids are unique")
    }

    /// The well-formed payloads of each kind are clean: lint is not noise.
    @Test(arguments: [
        request(#"{"aps": {"alert": {"title": "Hello", "body": "World"}, "sound": "default", "badge": 1}, "id": 7}"#, topic: "com.example.app", priority: 10),
        request(#"{"aps": {"content-available": 1}, "sync": true}"#, .background, topic: "com.example.app", priority: 5),
        request(#"{"aps": {"content-changed": true}}"#, .widgets, topic: "com.example.app.push-type.widgets", priority: 5),
        live(start, priority: 10, schema: schema),
        live(#""event": "update", "content-state": {"score": 2, "kickoff": 785000000}, "stale-date": \#(ts + 900)"#, schema: schema),
        live(#""event": "end", "content-state": {"score": 3, "kickoff": 785000000}, "dismissal-date": \#(ts + 3600)"#, priority: 10, schema: schema),
    ])
    func cleanPayloads(_ request: APNsLintRequest) {
        #expect(Self.ids(request) == [])
    }

    @Test func deviceMarkNamesTheFirstErrorsEffect() {
        let report = APNsPayloadLint.lint(Self.live(#""event": "start", "content-state": {}, "attributes-type": "T", "attributes": {}"#, priority: 10))
        #expect(report.deviceMark?.hasPrefix("dropped: A push-to-start without aps.alert") == true)
        #expect(APNsPayloadLint.lint(Self.live(Self.update)).deviceMark == nil)
    }

    @Test func impliedPushTypes() {
        #expect(APNsPayloadLint.lint(Self.live(Self.update, type: .alert)).pushType == .alert)
        #expect(APNsPayloadLint.lint(APNsLintRequest(payload: Array(#"{"aps": {"event": "update"}}"#.utf8))).pushType == .liveactivity)
        #expect(APNsPayloadLint.lint(APNsLintRequest(payload: Array(#"{"aps": {"content-available": 1}}"#.utf8))).pushType == .background)
        #expect(APNsPayloadLint.lint(APNsLintRequest(payload: Array(#"{"aps": {"alert": "x"}}"#.utf8))).pushType == .alert)
    }

    /// Before: `Int(seconds)` on these trapped (SIGILL) in lint, push and the mock.
    @Test(arguments: ["1e19", "-1e19", "18446744073709551615", "9223372036854775808", "-9223372036854775809", "1e308", "-1e308", "1e400", "-1e400", "-0"])
    func numbersPastIntsRange(_ number: String) {
        let dates = Self.live(#""event": "update", "content-state": {"score": 1, "kickoff": \#(number)}, "stale-date": \#(number), "dismissal-date": \#(number)"#,
                              timestamp: number, schema: Self.schema, previous: Self.ts)
        let report = APNsPayloadLint.lint(dates)
        let positive = !number.hasPrefix("-") && number != "-0"
        #expect(report.findings.contains { $0.rule == (positive ? APNsLintRules.laTimestampMilliseconds : APNsLintRules.laTimestampStale) }, "\(report.findings)")
        #expect(report.liveActivityTimestamp == Int(exactly: Double(number)!.rounded(.down)))
        #expect(report.findings.allSatisfy { !$0.message.isEmpty })
    }

    /// Lint's bound: nothing past 5,120 bytes is parsed, and nesting past 64 is refused by
    /// `JSONSyntax` without recursing (docs/lint.md, README bounds table).
    @Test func boundedInput() {
        let huge = APNsPayloadLint.lint(APNsLintRequest(payload: [UInt8](repeating: UInt8(ascii: "["), count: 10_000_000)))
        #expect(huge.findings.map(\.rule.id) == ["payload-too-large"])
        let deep = #"{"aps": {"alert": "x"}, "d": "# + String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000) + "}"
        #expect(Self.ids(Self.request(deep)) == ["payload-not-object"])
        let atLimit = #"{"aps": {"alert": "x"}, "d": "# + String(repeating: "[", count: 62) + String(repeating: "]", count: 62) + "}"
        #expect(Self.ids(Self.request(atLimit)) == [])
    }

    @Test(arguments: [
        (#"[]"#, "is not a JSON object"),
        (#"{"attributes": {"a": "Integer"}}"#, "the type \"Integer\""),
        (#"{"state": {}}"#, "has the key \"state\""),
        (#"{"attributes": {}, "content-state": {}}"#, "describes no fields"),
    ])
    func schemaProblems(_ text: String, _ expected: String) {
        #expect(throws: APNsActivitySchema.Problem.self) { try APNsActivitySchema(parsing: Array(text.utf8)) }
        do { _ = try APNsActivitySchema(parsing: Array(text.utf8)) } catch { #expect(error.description.contains(expected), "\(error.description)") }
    }

    @Test func schemaShapes() throws {
        let schema = try APNsActivitySchema(parsing: Array(#"{"content-state": {"tags": ["String"], "clock?": {"minute": "int"}, "x": "double?"}}"#.utf8))
        #expect(schema.contentState.map(\.name) == ["tags", "clock", "x"])
        #expect(schema.contentState.map(\.optional) == [false, true, true])
        let request = Self.live(#""event": "update", "content-state": {"tags": ["a", 2], "clock": {"minute": "5"}}"#, schema: schema)
        #expect(APNsPayloadLint.lint(request).findings.map(\.path) == ["aps.content-state.tags[1]", "aps.content-state.clock.minute"])
    }

    /// The lint's parser against Foundation's on what JSON allows: escapes, surrogate pairs
    /// (and a lone one), numbers of every shape, nesting at the limit.
    @Test(arguments: [
        #"{"a": "tab\tquote\"slash\/back\\ \u00e9 \ud83d\ude00"}"#,
        #"{"n": [0, -1, 1.5, -2.5e3, 1E2, 9007199254740993], "b": [true, false, null]}"#,
        #"{"deep": "# + String(repeating: "[", count: 62) + String(repeating: "]", count: 62) + "}",
        #"{"empty": {}, "list": [], "s": ""}"#,
    ])
    func parserAgreesWithFoundation(_ text: String) throws {
        let bytes = Array(text.utf8)
        let ours = try #require(APNsPayloadLint.parseForTests(bytes))
        let theirs = try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
        let back = try #require(JSONSerialization.jsonObject(with: Data(ours.serialized())) as? NSDictionary)
        #expect(back == theirs, "\(String(decoding: ours.serialized(), as: UTF8.self))")
    }

    @Test func loneSurrogateIsReplaced() throws {
        let value = try #require(APNsPayloadLint.parseForTests(Array(#"{"s": "a\ud800b"}"#.utf8)))
        #expect(value == .object([("s", .string("a\u{FFFD}b"))]))
    }
}
