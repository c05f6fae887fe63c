// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// How bad a lint finding is: an error is a payload APNs refuses or a device does not apply;
/// a warning is a risk (a key ignored, a budget spent, behaviour Apple does not document).
public enum APNsLintSeverity: String, Sendable, Codable, Comparable {
    /// APNs refuses the payload, or a device drops it or does not apply it.
    case error
    /// A risk: a key ignored, a budget spent, behaviour Apple does not document.
    case warning

    /// Errors sort before warnings, as reports list them.
    public static func < (lhs: APNsLintSeverity, rhs: APNsLintSeverity) -> Bool { lhs == .error && rhs == .warning }
}

/// One rule of the payload lint: its id, severity, what APNs answers, what the device does,
/// and where the fact comes from (a section of docs/apns-protocol.md, §11 for most). The table
/// in docs/lint.md is this catalogue written out; `LintRuleCatalogueTests` keeps them equal.
public struct APNsLintRule: Sendable, Hashable {
    /// The rule's stable name (`la-timestamp-missing`), as `apnskit lint` prints it and docs/lint.md lists it.
    public let id: String
    /// Whether a finding of this rule is an error or a warning.
    public let severity: APNsLintSeverity
    /// What APNs answers such a request: "200" for most (lint exists for those), or a status
    /// and reason.
    public let apnsAnswer: String
    /// What the device does with it, as the mock marks it ("dropped", "update ignored",
    /// "may play no sound", ...); nil when the device shows it as sent and the risk is elsewhere.
    public let device: String?
    /// The section of docs/apns-protocol.md that holds the rule's source.
    public let source: String

    /// A rule; the catalogue is `APNsLintRules`, so this is for tests and front ends that
    /// report rules of their own the same way.
    public init(id: String, severity: APNsLintSeverity, apnsAnswer: String = "200", device: String?, source: String) {
        self.id = id
        self.severity = severity
        self.apnsAnswer = apnsAnswer
        self.device = device
        self.source = source
    }
}

/// A rule that tripped, where, and a sentence saying what is wrong and what to do.
public struct APNsLintFinding: Sendable, Hashable, CustomStringConvertible {
    /// The rule that tripped: its id, severity and source.
    public let rule: APNsLintRule
    /// The JSON path it is about (`aps.content-state.score`), or a header (`apns-priority`).
    public let path: String
    /// What is wrong and what to do, in one sentence.
    public let message: String

    /// A finding of `rule` at `path`.
    public init(rule: APNsLintRule, path: String, message: String) {
        self.rule = rule
        self.path = path
        self.message = message
    }

    /// `error [rule-id] path: message`, the line `apnskit lint` prints.
    public var description: String { "\(rule.severity.rawValue) [\(rule.id)] \(path): \(message)" }
}
