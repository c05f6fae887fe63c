// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The rules for alert, background, widget and Push to Talk pushes, and for the shapes of
/// Apple's alert keys whatever the push type (apns-protocol.md §11.1, §11.3).
extension LintPass {
    /// Something for the user to see or hear: an alert, a badge or a sound.
    var hasVisibleContent: Bool { aps("alert") != nil || aps("badge") != nil || aps("sound") != nil }

    mutating func checkAlertPush() {
        if hasVisibleContent { return }
        if aps("content-available") != nil {
            add(APNsLintRules.alertOnlyContentAvailable, "apns-push-type", "The payload only asks to wake the app (content-available) but the push type is alert; send it with apns-push-type background and apns-priority 5, or add an alert.")
        } else if aps("content-changed") == nil {
            add(APNsLintRules.alertNothingToShow, "aps", "An alert push without alert, badge or sound shows nothing; add aps.alert (title and body), or send a background push if the app only needs to be woken.")
        }
    }

    mutating func checkBackgroundPush() {
        let visible = ["alert", "sound", "badge"].filter { aps($0) != nil }
        if !visible.isEmpty {
            add(APNsLintRules.backgroundWithAlert, "aps.\(visible[0])", "A background push holds only content-available (and the app's keys); this one has \(visible.map { "aps.\($0)" }.joined(separator: ", ")), and Apple says APNs may then delay or drop it. Send it as an alert push, or drop those keys.")
        }
        if aps("content-available")?.integer != 1 {
            add(APNsLintRules.backgroundWithoutContentAvailable, "aps.content-available", "A background push must carry aps.content-available: 1, or the app is not woken; add it.")
        }
        if let priority = request.priority, priority == 10 {
            add(APNsLintRules.backgroundPriority, "apns-priority", "A background push goes at priority 5; Apple calls priority 10 an error for it (and background pushes are throttled). Send it with apns-priority 5.")
        }
        if request.pushType == nil {
            add(APNsLintRules.backgroundPushTypeMissing, "apns-push-type", "A background push without apns-push-type: APNs takes it, but Apple requires the header on watchOS and recommends it everywhere. Send it with apns-push-type background.")
        }
    }

    mutating func checkWidgets() {
        if aps("content-changed") != .bool(true) {
            add(APNsLintRules.widgetsContentChanged, "aps.content-changed", "A widget push is {\"aps\": {\"content-changed\": true}}; without content-changed true WidgetKit does not reload the widget. Add it.")
        }
    }

    mutating func checkPushToTalk() {
        if let priority = request.priority, priority != 10 {
            add(APNsLintRules.pushToTalkPriority, "apns-priority", "A Push to Talk push goes at priority 10 (with apns-expiration 0): a late message is of no use. Send it with apns-priority 10.")
        }
    }

    /// The shapes of `alert`, `badge`, `sound`, the flags and levels, in any push type.
    mutating func checkAlertKeys() {
        for flag in ["content-available", "mutable-content"] {
            if let value = aps(flag), value.integer != 1 {
                add(APNsLintRules.flagNotOne, "aps.\(flag)", "aps.\(flag) is \(value.kindName); Apple documents the number 1. Send \"\(flag)\": 1 (or leave the key out).")
            }
        }
        if aps("mutable-content") != nil && aps("alert") == nil && pushType != .liveactivity {
            add(APNsLintRules.mutableContentWithoutAlert, "aps.mutable-content", "mutable-content runs the app's notification service extension only for a notification the user sees; this one has no alert. Add aps.alert with a title or body.")
        }
        if let alert = aps("alert") { checkAlert(alert) }
        if let badge = aps("badge"), badge.integer == nil || badge.integer! < 0 {
            add(APNsLintRules.badgeNotInteger, "aps.badge", "aps.badge is \(badge.kindName == "an integer" ? "negative" : badge.kindName); it must be a whole number, 0 or more (0 removes the badge). Send it as a JSON number.")
        }
        if let sound = aps("sound") { checkSound(sound, path: "aps.sound") }
        if let level = aps("interruption-level"), !(level.stringValue.map(Self.interruptionLevels.contains) ?? false) {
            add(APNsLintRules.interruptionLevel, "aps.interruption-level", "aps.interruption-level must be one of passive, active, time-sensitive, critical; the device shows anything else at the default level (active).")
        }
        if pushType != .liveactivity, let score = aps("relevance-score"), !(score.number.map { (0...1).contains($0) } ?? false) {
            add(APNsLintRules.relevanceScore, "aps.relevance-score", "aps.relevance-score is a number from 0 to 1 for a notification (it orders a notification summary); this one is \(score.number.map { String($0) } ?? score.kindName).")
        }
    }

    static let interruptionLevels: Set<String> = ["passive", "active", "time-sensitive", "critical"]

    private mutating func checkAlert(_ alert: JSONValue) {
        switch alert {
        case .string: return
        case .object(let members):
            if pushType == .liveactivity {
                // A Live Activity's title and body may be text or a {"loc-key", "loc-args"} object (§8).
                for (key, value) in members where key == "title" || key == "body" {
                    if case .object(let localized) = value { checkLocalized(localized, keyName: "loc-key", argsName: "loc-args", path: "aps.alert.\(key)") }
                }
                if let sound = members.first(where: { $0.0 == "sound" })?.1 { checkSound(sound, path: "aps.alert.sound") }
                return
            }
            for (key, value) in members where ["title", "subtitle", "body", "launch-image"].contains(key) {
                if case .string = value { continue }
                add(APNsLintRules.alertShape, "aps.alert.\(key)", "aps.alert.\(key) is \(value.kindName); it must be text.")
            }
            checkLocalized(members, keyName: "loc-key", argsName: "loc-args", path: "aps.alert")
            checkLocalized(members, keyName: "title-loc-key", argsName: "title-loc-args", path: "aps.alert")
            checkLocalized(members, keyName: "subtitle-loc-key", argsName: "subtitle-loc-args", path: "aps.alert")
        default:
            add(APNsLintRules.alertShape, "aps.alert", "aps.alert is \(alert.kindName); it must be text or an object with title, subtitle and body.")
        }
    }

    /// A localization key is text; its arguments an array of strings, and only with the key.
    private mutating func checkLocalized(_ members: [(String, JSONValue)], keyName: String, argsName: String, path: String) {
        let key = members.first { $0.0 == keyName }?.1
        let args = members.first { $0.0 == argsName }?.1
        if let key, key.stringValue == nil {
            add(APNsLintRules.locShape, "\(path).\(keyName)", "\(path).\(keyName) is \(key.kindName); it must be the text of a key in the app's Localizable.strings.")
        }
        guard let args else { return }
        if case .array(let items) = args, items.allSatisfy({ $0.stringValue != nil }) {
            if key == nil { add(APNsLintRules.locShape, "\(path).\(argsName)", "\(path).\(argsName) is given without \(keyName); the arguments fill the key's format, so add \(keyName).") }
        } else {
            add(APNsLintRules.locShape, "\(path).\(argsName)", "\(path).\(argsName) must be an array of strings (numbers too are sent as strings); it is \(args.kindName) or holds other values.")
        }
    }

    /// A sound is a file name, or for critical alerts `{"critical": 1, "name": ..., "volume": 0...1}`.
    private mutating func checkSound(_ sound: JSONValue, path: String) {
        switch sound {
        case .string: return
        case .object(let members):
            let name = members.first { $0.0 == "name" }?.1
            if name?.stringValue == nil {
                add(APNsLintRules.soundShape, "\(path).name", "\(path) is a dictionary without a name (text: a sound file's name or \"default\"); the device may play no sound. Add \"name\".")
            }
            if let critical = members.first(where: { $0.0 == "critical" })?.1, critical.integer != 0 && critical.integer != 1 {
                add(APNsLintRules.soundShape, "\(path).critical", "\(path).critical is \(critical.kindName); it is the number 1 for a critical alert (or 0). Send 1.")
            }
            if let volume = members.first(where: { $0.0 == "volume" })?.1, !(volume.number.map { (0...1).contains($0) } ?? false) {
                add(APNsLintRules.soundShape, "\(path).volume", "\(path).volume is a number from 0 (silent) to 1 (full); this one is \(volume.number.map { String($0) } ?? volume.kindName).")
            }
        default:
            add(APNsLintRules.soundShape, path, "\(path) is \(sound.kindName); it must be a sound file's name, \"default\", or a critical-alert dictionary. The device may play no sound.")
        }
    }
}

extension JSONValue {
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
