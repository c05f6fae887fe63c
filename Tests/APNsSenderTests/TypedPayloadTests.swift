// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender
import Foundation
import Testing
import TestSupport

/// The JSON each typed payload produces, with Apple's key names spelled out here by hand (not
/// taken from the code under test), read back by Foundation's `JSONDecoder` and by Python's
/// `json` module: a second parser that shares nothing with ours.
@Suite("Typed payloads: Apple's keys, read back by JSONDecoder and Python")
struct TypedPayloadTests {
    struct Order: Codable, Sendable, Equatable {
        let order: String
        let items: Int
    }

    /// Python parses `bytes` and compares them with `expected` as values (key order and
    /// spacing aside); the answer says what differs.
    func expectPython(_ bytes: [UInt8], equals expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let script = """
        import json, sys
        got = json.load(sys.stdin)
        want = json.loads(sys.argv[1])
        print("same" if got == want else "differs: got " + json.dumps(got, sort_keys=True))
        """
        let run = try ProcessRunner.run("python3", ["-c", script, expected], stdin: Data(bytes))
        #expect(run.status == 0 && run.stdout == "same\n", "\(run)", sourceLocation: sourceLocation)
    }

    @Test("Alert: the whole aps dictionary, localization keys, the critical sound and the app's keys beside aps")
    func alert() throws {
        var alert = APNsAlert(title: "Shipped", subtitle: "Order A-1", body: "Arrives Tuesday")
        alert.titleLocalizationKey = "SHIPPED_TITLE"
        alert.titleLocalizationArguments = ["A-1"]
        alert.subtitleLocalizationKey = "SHIPPED_SUBTITLE"
        alert.subtitleLocalizationArguments = ["2"]
        alert.bodyLocalizationKey = "SHIPPED_BODY"
        alert.bodyLocalizationArguments = ["Tuesday", "3"]
        alert.launchImage = "Launch.png"
        var payload = APNsAlertPayload(alert: alert, custom: Order(order: "A-1", items: 2))
        payload.badge = 3
        payload.sound = .critical(name: "alarm.caf", volume: 0.5)
        payload.threadID = "orders"
        payload.category = "ORDER"
        payload.mutableContent = true
        payload.contentAvailable = true
        payload.targetContentID = "order-A-1"
        payload.interruptionLevel = .timeSensitive
        payload.relevanceScore = 0.75
        payload.filterCriteria = "work"
        let notification = try APNsNotification(token: try APNsDeviceToken(parsing: String(repeating: "ab", count: 32)), payload: payload)
        #expect(notification.pushType == .alert)
        #expect(notification.priority == nil, "APNs' default, 10")

        try expectPython(notification.payload, equals: """
        {"aps": {"alert": {"title": "Shipped", "subtitle": "Order A-1", "body": "Arrives Tuesday",
                           "title-loc-key": "SHIPPED_TITLE", "title-loc-args": ["A-1"],
                           "subtitle-loc-key": "SHIPPED_SUBTITLE", "subtitle-loc-args": ["2"],
                           "loc-key": "SHIPPED_BODY", "loc-args": ["Tuesday", "3"], "launch-image": "Launch.png"},
                 "badge": 3, "sound": {"critical": 1, "name": "alarm.caf", "volume": 0.5},
                 "thread-id": "orders", "category": "ORDER", "mutable-content": 1, "content-available": 1,
                 "target-content-id": "order-A-1", "interruption-level": "time-sensitive",
                 "relevance-score": 0.75, "filter-criteria": "work"},
         "order": "A-1", "items": 2}
        """)

        struct Decoded: Decodable {
            struct APS: Decodable {
                struct Alert: Decodable {
                    let title, subtitle, body, titleLocKey, subtitleLocKey, locKey, launchImage: String
                    let titleLocArgs, subtitleLocArgs, locArgs: [String]
                    enum CodingKeys: String, CodingKey {
                        case title, subtitle, body, titleLocKey = "title-loc-key", subtitleLocKey = "subtitle-loc-key", locKey = "loc-key"
                        case launchImage = "launch-image", titleLocArgs = "title-loc-args", subtitleLocArgs = "subtitle-loc-args", locArgs = "loc-args"
                    }
                }
                struct Sound: Decodable { let critical: Int; let name: String; let volume: Double }
                let alert: Alert
                let badge: Int
                let sound: Sound
                let threadID, category, targetContentID, interruptionLevel, filterCriteria: String
                let mutableContent, contentAvailable: Int
                let relevanceScore: Double
                enum CodingKeys: String, CodingKey {
                    case alert, badge, sound, category, threadID = "thread-id", targetContentID = "target-content-id"
                    case interruptionLevel = "interruption-level", filterCriteria = "filter-criteria", mutableContent = "mutable-content"
                    case contentAvailable = "content-available", relevanceScore = "relevance-score"
                }
            }
            let aps: APS
        }
        let decoded = try JSONDecoder().decode(Decoded.self, from: Data(notification.payload))
        #expect(decoded.aps.alert.locArgs == ["Tuesday", "3"])
        #expect(decoded.aps.sound.critical == 1 && decoded.aps.sound.volume == 0.5)
        #expect(decoded.aps.interruptionLevel == "time-sensitive" && decoded.aps.relevanceScore == 0.75)
        #expect(try JSONDecoder().decode(Order.self, from: Data(notification.payload)) == Order(order: "A-1", items: 2), "the app's keys sit beside aps")
    }

    @Test("Alert: a named sound is a string; every interruption level has Apple's spelling")
    func soundAndLevels() throws {
        for (level, word) in [(APNsInterruptionLevel.passive, "passive"), (.active, "active"), (.timeSensitive, "time-sensitive"), (.critical, "critical")] {
            var payload = APNsAlertPayload(alert: APNsAlert(body: "Hi"))
            payload.sound = .default
            payload.interruptionLevel = level
            try expectPython(try payload.encoded(), equals: #"{"aps": {"alert": {"body": "Hi"}, "sound": "default", "interruption-level": "\#(word)"}}"#)
        }
    }

    @Test("Background, widgets, location: Apple's fixed aps keys; background goes at priority 5")
    func silentPushes() throws {
        let token = try APNsDeviceToken(parsing: String(repeating: "cd", count: 32))
        let background = try APNsNotification(token: token, payload: APNsBackgroundPayload(custom: ["sync": "inbox"]))
        #expect(background.pushType == .background && background.priority == .conservePower)
        try expectPython(background.payload, equals: #"{"aps": {"content-available": 1}, "sync": "inbox"}"#)
        struct BackgroundAPS: Decodable {
            struct APS: Decodable { let contentAvailable: Int; enum CodingKeys: String, CodingKey { case contentAvailable = "content-available" } }
            let aps: APS
            let sync: String
        }
        #expect(try JSONDecoder().decode(BackgroundAPS.self, from: Data(background.payload)).aps.contentAvailable == 1)

        let widgets = try APNsNotification(token: token, payload: APNsWidgetsPayload())
        #expect(widgets.pushType == .widgets)
        try expectPython(widgets.payload, equals: #"{"aps": {"content-changed": true}}"#)
        struct WidgetsAPS: Decodable {
            struct APS: Decodable { let contentChanged: Bool; enum CodingKeys: String, CodingKey { case contentChanged = "content-changed" } }
            let aps: APS
        }
        #expect(try JSONDecoder().decode(WidgetsAPS.self, from: Data(widgets.payload)).aps.contentChanged)

        let location = try APNsNotification(token: token, payload: APNsLocationPayload())
        #expect(location.pushType == .location)
        try expectPython(location.payload, equals: "{}")
    }

    @Test("VoIP, complication, File Provider, Push to Talk: the app's value is the whole body, with the push type's header")
    func contentPayloads() throws {
        let token = try APNsDeviceToken(parsing: String(repeating: "ef", count: 32))
        let order = Order(order: "B-7", items: 1)
        let notifications = [
            try APNsNotification(token: token, payload: APNsVoIPPayload(order)),
            try APNsNotification(token: token, payload: APNsComplicationPayload(order)),
            try APNsNotification(token: token, payload: APNsFileProviderPayload(order)),
            try APNsNotification(token: token, payload: APNsPushToTalkPayload(order)),
        ]
        #expect(notifications.map(\.pushType) == [.voip, .complication, .fileprovider, .pushtotalk])
        #expect(notifications.map(\.expiration) == [nil, nil, nil, 0], "push to talk: deliver now or never")
        for notification in notifications {
            try expectPython(notification.payload, equals: #"{"order": "B-7", "items": 1}"#)
            #expect(try JSONDecoder().decode(Order.self, from: Data(notification.payload)) == order)
        }
    }

    struct Score: Codable, Sendable, Equatable {
        let home: Int
        let away: Int
        let kickoff: Date
    }

    struct Match: Codable, Sendable, Equatable {
        let homeTeam: String
        let awayTeam: String
    }

    @Test("Live Activity start: attributes-type, attributes, alert, input-push-token; dates in UNIX seconds, the content state's as ActivityKit decodes them")
    func liveActivityStart() throws {
        let kickoff = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let state = Score(home: 0, away: 0, kickoff: kickoff)
        let start = APNsLiveActivityStartPayload(attributesType: "MatchAttributes", attributes: Match(homeTeam: "A", awayTeam: "B"), contentState: state,
                                                 alert: APNsLiveActivityAlert(title: .localized(key: "KICKOFF", arguments: ["A", "B"]), body: .plain("Live now"),
                                                                              sound: .default),
                                                 updates: .pushToken, timestamp: Date(timeIntervalSince1970: 1_800_000_000),
                                                 staleDate: Date(timeIntervalSince1970: 1_800_003_600), relevanceScore: 1)
        let notification = try APNsNotification(token: try APNsDeviceToken(parsing: String(repeating: "12", count: 32)), payload: start)
        #expect(notification.pushType == .liveactivity && notification.priority == .immediate)
        try expectPython(notification.payload, equals: """
        {"aps": {"timestamp": 1800000000, "event": "start", "stale-date": 1800003600, "relevance-score": 1,
                 "content-state": {"home": 0, "away": 0, "kickoff": 800000000},
                 "attributes-type": "MatchAttributes", "attributes": {"homeTeam": "A", "awayTeam": "B"},
                 "alert": {"title": {"loc-key": "KICKOFF", "loc-args": ["A", "B"]}, "body": "Live now", "sound": "default"},
                 "input-push-token": 1}}
        """)

        // ActivityKit's side: a default JSONDecoder reading content-state into the app's type.
        struct Decoded: Decodable {
            struct APS: Decodable {
                let contentState: Score
                let attributes: Match
                enum CodingKeys: String, CodingKey { case contentState = "content-state", attributes }
            }
            let aps: APS
        }
        let decoded = try JSONDecoder().decode(Decoded.self, from: Data(notification.payload))
        #expect(decoded.aps.contentState == state, "the kickoff Date survives ActivityKit's default decoding")
        #expect(decoded.aps.attributes == Match(homeTeam: "A", awayTeam: "B"))
    }

    @Test("Live Activity update and end: no start keys; priority 5 without an alert, 10 with one or for an end; a channel start")
    func liveActivityUpdateEnd() throws {
        let token = try APNsDeviceToken(parsing: String(repeating: "34", count: 32))
        let state = Score(home: 1, away: 0, kickoff: Date(timeIntervalSinceReferenceDate: 0))
        let when = Date(timeIntervalSince1970: 1_800_000_100.9)
        let quiet = try APNsNotification(token: token, payload: APNsLiveActivityPayload(event: .update, contentState: state, timestamp: when))
        #expect(quiet.priority == .conservePower)
        try expectPython(quiet.payload, equals: #"{"aps": {"timestamp": 1800000100, "event": "update", "content-state": {"home": 1, "away": 0, "kickoff": 0}}}"#)

        let loud = try APNsNotification(token: token, payload: APNsLiveActivityPayload(event: .update, contentState: state, timestamp: when,
                                                                                       alert: APNsLiveActivityAlert(title: "Goal!")))
        #expect(loud.priority == .immediate)
        try expectPython(loud.payload, equals: #"{"aps": {"timestamp": 1800000100, "event": "update", "content-state": {"home": 1, "away": 0, "kickoff": 0}, "alert": {"title": "Goal!"}}}"#)

        let end = try APNsNotification(token: token, payload: APNsLiveActivityPayload(event: .end, contentState: state, timestamp: when,
                                                                                      dismissalDate: Date(timeIntervalSince1970: 1_800_000_700)))
        #expect(end.priority == .immediate)
        try expectPython(end.payload, equals: #"{"aps": {"timestamp": 1800000100, "event": "end", "content-state": {"home": 1, "away": 0, "kickoff": 0}, "dismissal-date": 1800000700}}"#)

        let channel = APNsLiveActivityStartPayload(attributesType: "MatchAttributes", attributes: Match(homeTeam: "A", awayTeam: "B"), contentState: state,
                                                   alert: APNsLiveActivityAlert(title: "Kickoff"), updates: .channel("dHdvIGNoYW5uZWw="), timestamp: when)
        try expectPython(try channel.encoded(), equals: """
        {"aps": {"timestamp": 1800000100, "event": "start", "content-state": {"home": 1, "away": 0, "kickoff": 0},
                 "attributes-type": "MatchAttributes", "attributes": {"homeTeam": "A", "awayTeam": "B"},
                 "alert": {"title": "Kickoff"}, "input-push-channel": "dHdvIGNoYW5uZWw="}}
        """)
    }

    @Test("The encoder is the caller's: a content state that decodes UNIX-second dates gets them; Apple's aps dates stay UNIX seconds")
    func configurableEncoder() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let state = Score(home: 2, away: 2, kickoff: Date(timeIntervalSince1970: 1_700_000_000))
        let update = APNsLiveActivityPayload(event: .update, contentState: state, timestamp: Date(timeIntervalSince1970: 1_800_000_000))
        try expectPython(try update.encoded(with: encoder),
                         equals: #"{"aps": {"timestamp": 1800000000, "event": "update", "content-state": {"home": 2, "away": 2, "kickoff": 1700000000}}}"#)
    }

    @Test("Typed errors: out-of-range values, custom keys that cannot sit beside aps, a payload over the push type's limit")
    func errors() throws {
        let token = try APNsDeviceToken(parsing: String(repeating: "56", count: 32))
        func error(_ build: () throws -> APNsNotification) -> APNsPayloadError? {
            do { _ = try build(); return nil } catch { return error as? APNsPayloadError }
        }
        var loud = APNsAlertPayload(alert: APNsAlert(title: "x"))
        loud.sound = .critical(name: "alarm.caf", volume: 1.5)
        #expect(error { try APNsNotification(token: token, payload: loud) }?.code == .invalidValue)
        var ranked = APNsAlertPayload(alert: APNsAlert(title: "x"))
        ranked.relevanceScore = -0.1
        #expect(error { try APNsNotification(token: token, payload: ranked) }?.description == "aps.relevance-score is -0.1; Apple takes a number from 0 to 1.")

        #expect(error { try APNsNotification(token: token, payload: APNsAlertPayload(custom: "just a string")) }?.code == .invalidValue)
        // Merged unchecked, an array beside aps traps inside Foundation's JSONEncoder: the check comes first.
        #expect(error { try APNsNotification(token: token, payload: APNsBackgroundPayload(custom: [1, 2])) }?.code == .invalidValue)
        #expect(error { try APNsNotification(token: token, payload: APNsBackgroundPayload(custom: ["aps": 1])) }?.description
            == "The background payload's custom value has a key named aps; that key is Apple's: rename it.")
        #expect(error { try APNsNotification(token: token, payload: APNsVoIPPayload([1, 2, 3])) }?.code == .notAnObject)

        let silentStart = APNsLiveActivityStartPayload(attributesType: "MatchAttributes", attributes: Match(homeTeam: "A", awayTeam: "B"),
                                                       contentState: Score(home: 0, away: 0, kickoff: Date()), alert: APNsLiveActivityAlert())
        #expect(error { try APNsNotification(token: token, payload: silentStart) }?.description
            == "A Live Activity start needs an alert with a title or a body; the device drops a start without one.")
        let untyped = APNsLiveActivityStartPayload(attributesType: "", attributes: Match(homeTeam: "A", awayTeam: "B"),
                                                   contentState: Score(home: 0, away: 0, kickoff: Date()), alert: APNsLiveActivityAlert(title: "Kickoff"))
        #expect(error { try APNsNotification(token: token, payload: untyped) }?.code == .invalidValue)

        let body = String(repeating: "x", count: 4_100)
        let tooLarge = error { try APNsNotification(token: token, alert: APNsAlert(body: body)) }
        #expect(tooLarge?.code == .tooLarge)
        #expect(tooLarge?.description == "The payload is 4129 bytes; APNs takes at most 4096 for alert pushes: shorten it.")
        #expect(error { try APNsNotification(token: token, payload: APNsVoIPPayload(["body": body])) } == nil, "VoIP's limit is 5,120 bytes")
    }
}
