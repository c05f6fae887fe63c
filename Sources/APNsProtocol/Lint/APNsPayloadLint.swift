// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What a payload lint looks at: the payload and the headers that decide how APNs and the
/// device read it. Headers left nil are unknown, and the rules about them are skipped (the
/// mock and `push` pass what they send; `apnskit lint` what its flags say).
public struct APNsLintRequest: Sendable {
    /// The body as it would be sent: parsed here, so a payload that is not JSON is a finding.
    public var payload: [UInt8]
    /// nil: worked out from the payload (a Live Activity's keys, a lone `content-available`).
    public var pushType: APNsPushType?
    /// `apns-topic`, to check its suffix against the push type; nil skips those rules.
    public var topic: String?
    /// `apns-priority` as sent; APNs reads a missing header as 10, so senders pass 10 then.
    public var priority: Int?
    /// `apns-collapse-id`, which a Live Activity start must not carry.
    public var collapseID: String?
    /// The app's ActivityAttributes and ContentState, to check a Live Activity's fields against.
    public var schema: APNsActivitySchema?
    /// The newest `timestamp` already sent to this Live Activity's token (the mock keeps it).
    public var previousTimestamp: Int?
    /// The time stale and future Live Activity timestamps are judged against (a test passes its own).
    public var now: Date

    /// A request; headers left nil are unknown and their rules skipped.
    public init(payload: [UInt8], pushType: APNsPushType? = nil, topic: String? = nil, priority: Int? = nil, collapseID: String? = nil,
                schema: APNsActivitySchema? = nil, previousTimestamp: Int? = nil, now: Date = Date()) {
        self.payload = payload
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.collapseID = collapseID
        self.schema = schema
        self.previousTimestamp = previousTimestamp
        self.now = now
    }
}

/// What the lint found, errors first.
public struct APNsLintReport: Sendable, Equatable {
    /// Every finding, errors first, each in the order its rule runs.
    public let findings: [APNsLintFinding]
    /// The push type the rules were applied for: the request's, or the one the payload implies.
    public let pushType: APNsPushType
    /// A Live Activity payload's `aps.timestamp` when it is a number (the mock remembers it
    /// per token, for `la-timestamp-stale`).
    public let liveActivityTimestamp: Int?

    /// The findings APNs refuses or a device drops for: fix these before sending.
    public var errors: [APNsLintFinding] { findings.filter { $0.rule.severity == .error } }
    /// The findings that are risks, not refusals.
    public var warnings: [APNsLintFinding] { findings.filter { $0.rule.severity == .warning } }

    /// What a device would do, as the mock marks a notification: the first error's (else the
    /// first warning's) device effect and sentence, e.g. "dropped: aps.event is missing; ...".
    /// Nil when no finding names an effect.
    public var deviceMark: String? {
        guard let finding = findings.first(where: { $0.rule.device != nil }) else { return nil }
        return "\(finding.rule.device!): \(finding.message)"
    }
}

/// Lints a notification before it is sent (or, in the mock, as it is accepted): the requests
/// APNs answers 200 but a device drops, throttles or shows otherwise than meant, and those
/// APNs refuses for their payload. Bounded as every input is: at most the push type's payload
/// limit (5,120 bytes for VoIP, 4,096 otherwise) is parsed, after `JSONSyntax` has checked the
/// nesting (depth 64) without recursion past it; a larger payload is one finding, unparsed.
///
/// ```swift
/// let report = APNsPayloadLint.lint(APNsLintRequest(payload: bytes, pushType: .liveactivity, topic: topic, priority: 10))
/// for finding in report.errors { print(finding) }
/// ```
public enum APNsPayloadLint {
    /// Runs every rule that applies to `request`'s push type; never throws, since a payload that
    /// cannot be parsed is itself a finding.
    public static func lint(_ request: APNsLintRequest) -> APNsLintReport {
        var lint = LintPass(request: request)
        lint.run()
        let ordered = lint.findings.filter { $0.rule.severity == .error } + lint.findings.filter { $0.rule.severity == .warning }
        return APNsLintReport(findings: ordered, pushType: lint.pushType, liveActivityTimestamp: lint.liveActivityTimestamp)
    }
}

/// One lint run: the parsed payload and the findings so far. The rules live in extensions
/// (AlertLint.swift, LiveActivityLint.swift, SchemaLint.swift), one concern each.
struct LintPass {
    let request: APNsLintRequest
    var findings: [APNsLintFinding] = []
    var pushType: APNsPushType
    var liveActivityTimestamp: Int?
    /// The payload's members and its `aps` dictionary's, once parsed.
    var root: [(String, JSONValue)] = []
    var aps: [(String, JSONValue)] = []

    init(request: APNsLintRequest) {
        self.request = request
        pushType = request.pushType ?? .alert
    }

    mutating func add(_ rule: APNsLintRule, _ path: String, _ message: String) {
        findings.append(APNsLintFinding(rule: rule, path: path, message: message))
    }

    func aps(_ key: String) -> JSONValue? { aps.first { $0.0 == key }?.1 }

    mutating func run() {
        let bytes = request.payload
        // Nothing past the largest payload APNs takes is parsed: that is lint's bound.
        guard bytes.count <= APNsPushType.voip.payloadLimit else {
            tooLarge(limit: pushType.payloadLimit)
            return
        }
        let notObject = "The payload is not a JSON object (or nests deeper than \(JSONSyntax.maximumDepth) levels); fix the JSON: APNs does not deliver what it cannot parse."
        guard JSONSyntax.isObject(bytes) else { return add(APNsLintRules.payloadNotObject, "payload", notObject) }
        if let offset = Self.firstInvalidUTF8(bytes) {
            add(APNsLintRules.payloadInvalidUTF8, "payload", "The payload is not valid UTF-8 (byte \(offset) of \(bytes.count)); JSON is UTF-8, and what a device shows of other bytes is not what was meant. Encode the text as UTF-8.")
            return
        }
        guard case .object(let members)? = JSONTreeParser.parse(bytes) else { return add(APNsLintRules.payloadNotObject, "payload", notObject) }
        root = members
        let apsCount = root.filter { $0.0 == "aps" }.count
        if apsCount > 1 {
            add(APNsLintRules.payloadDuplicateAps, "aps", "The payload has \(apsCount) aps keys; this lint judged the first, but Apple's parser may take the last, so what the device gets is not what was checked. Keep one aps.")
        }
        switch root.first(where: { $0.0 == "aps" })?.1 {
        case .object(let apsMembers)?: aps = apsMembers
        case nil: break
        case .some:
            add(APNsLintRules.apsNotObject, "aps", "aps must be a JSON object (a dictionary of Apple's keys); the device finds nothing to show in anything else.")
            return
        }
        if let path = Self.firstNonFiniteNumber(.object(root), path: "payload") {
            add(APNsLintRules.payloadNumberRange, path, "\(path) is a number past what a Double holds (about ±1.8e308); JSON decoders such as Foundation's and ActivityKit's refuse the payload. Send a number in range.")
        }
        pushType = request.pushType ?? impliedPushType()
        if bytes.count > pushType.payloadLimit { tooLarge(limit: pushType.payloadLimit) }
        checkTopic()
        checkUnknownKeys()
        switch pushType {
        case .liveactivity: checkLiveActivity()
        case .alert: checkAlertPush()
        case .background: checkBackgroundPush()
        case .widgets: checkWidgets()
        case .pushtotalk: checkPushToTalk()
        case .location, .voip, .complication, .fileprovider, .mdm: break
        }
        if pushType != .liveactivity && (aps("event") != nil || aps("content-state") != nil) {
            add(APNsLintRules.laPushType, "apns-push-type", "The payload is a Live Activity's (aps.event, aps.content-state) but the push type is \(pushType.rawValue); send it with apns-push-type liveactivity to <bundle id>.push-type.liveactivity.")
        }
        checkAlertKeys()
    }

    /// The path of the first number that parsed as infinity (`1e400`), or nil. Depth is
    /// bounded by `JSONSyntax` (64), so the recursion is too.
    static func firstNonFiniteNumber(_ value: JSONValue, path: String) -> String? {
        switch value {
        case .double(let number): return number.isFinite ? nil : path
        case .object(let members):
            for (key, member) in members {
                if let found = firstNonFiniteNumber(member, path: path == "payload" ? key : "\(path).\(key)") { return found }
            }
            return nil
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = firstNonFiniteNumber(item, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case .string, .int, .bool, .null: return nil
        }
    }

    /// The offset of the first byte that is not well-formed UTF-8, or nil when all are.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    private mutating func tooLarge(limit: Int) {
        add(APNsLintRules.payloadTooLarge, "payload", "The payload is \(request.payload.count) bytes; APNs takes at most \(limit) for \(pushType.rawValue) pushes (413 PayloadTooLarge). Move data out of the payload and let the app fetch it.")
    }

    /// The push type a sender that sets none means: a Live Activity's keys, or a lone
    /// `content-available` (background); otherwise alert, APNs' reading of a missing header.
    private func impliedPushType() -> APNsPushType {
        if aps("event") != nil || aps("content-state") != nil { return .liveactivity }
        if aps("content-available") != nil && aps("alert") == nil && aps("sound") == nil && aps("badge") == nil { return .background }
        return .alert
    }

    private mutating func checkTopic() {
        guard let topic = request.topic else { return }
        let suffix = pushType.topicSuffix
        if !suffix.isEmpty, !topic.hasSuffix(suffix) {
            add(APNsLintRules.topicSuffix, "apns-topic", "A \(pushType.rawValue) push goes to the topic <bundle id>\(suffix); \(topic) lacks the suffix, and APNs does not deliver it (the mock answers 400 BadTopic). Send to \(topic)\(suffix).")
            return
        }
        guard suffix.isEmpty, let other = APNsPushType.allCases.first(where: { !$0.topicSuffix.isEmpty && topic.hasSuffix($0.topicSuffix) }) else { return }
        add(APNsLintRules.topicOtherSuffix, "apns-topic", "The topic \(topic) is a \(other.rawValue) topic (\(other.topicSuffix)) but the push type is \(pushType.rawValue); use the push type that matches the topic, or the bare bundle id.")
    }

    /// Keys inside `aps` Apple does not define: never read, and often a typo of one it does.
    private mutating func checkUnknownKeys() {
        // Live Activity keys in another push are `la-push-type`'s business, not unknown.
        for (key, _) in aps where !Self.knownKeys.contains(key) {
            let folded = Self.fold(key)
            if let meant = Self.knownKeys.sorted().first(where: { Self.fold($0) == folded }) {
                add(APNsLintRules.apsUnknownKey, "aps.\(key)", "aps.\(key) is not an APNs key; the device ignores it. Did you mean \(meant)? (APNs keys use hyphens.)")
            } else {
                add(APNsLintRules.apsUnknownKey, "aps.\(key)", "aps.\(key) is not an APNs key; the device ignores it. Put the app's own keys beside aps, not inside it.")
            }
        }
    }

    private static func fold(_ key: String) -> String { String(key.lowercased().filter { $0 != "-" && $0 != "_" }) }

    /// Apple's `aps` keys (apns-protocol.md §8, §11): an alert push's, a widget push's, a Live Activity's.
    static let knownKeys: Set<String> = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content", "target-content-id",
        "interruption-level", "relevance-score", "filter-criteria", "content-changed",
        "timestamp", "event", "content-state", "stale-date", "dismissal-date", "attributes-type", "attributes",
        "input-push-token", "input-push-channel",
    ]
}

extension JSONValue {
    /// The number as an integer when it is one (JSON `5`, `5.0`); nil for text, bools, fractions.
    var integer: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value == value.rounded() && abs(value) < 1e18: return Int(value)
        default: return nil
        }
    }

    var number: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// What a reader calls this value's type in a sentence.
    var kindName: String {
        switch self {
        case .string: return "a string"
        case .int: return "an integer"
        case .double: return "a number with a fraction"
        case .bool: return "a boolean"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
