// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import APNsMock
import APNsProtocol
import Foundation

/// The inbox's JSON shape, shared by `GET /api/notifications` and the live events, so the page
/// and a test read one format. docs/mock-gateway.md ("Mock inbox") lists the fields.
extension InboxStore.Entry {
    package var json: JSONValue {
        let event = self.event
        let verdict = event.deviceVerdict
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let advice = event.protocolName == "legacy"
            ? (event.accepted ? nil : UInt8(exactly: event.status).flatMap(LegacyStatus.init(rawValue:))?.advice)
            : event.reason.flatMap(APNsReason.init(rawValue:))?.advice
        return .object([
            ("id", .int(id)),
            ("time", .string(InboxTime.format(event.time))),
            ("protocol", .string(event.protocolName)),
            ("status", .int(event.status)),
            ("accepted", .bool(event.accepted)),
            ("reason", text(event.reason)),
            ("advice", text(advice)),
            ("dropped", .bool(event.dropped)),
            // Lint (docs/lint.md): what a device would do with an accepted notification.
            ("device", text(verdict?.mark)),
            ("lint", .array((verdict?.rules ?? []).map(JSONValue.string))),
            ("token", text(event.deviceToken)),
            ("channel", text(event.channel)),
            ("topic", text(event.topic)),
            ("push_type", text(event.pushType)),
            ("priority", text(event.priority)),
            ("collapse_id", text(event.collapseID)),
            ("expiration", text(event.expiration)),
            ("apns_id", text(event.apnsID)),
            ("apns_unique_id", text(event.uniqueID)),
            ("identity", text(event.sender)),
            // Token auth: the token's shapes APNs serves though Apple's documentation does not show them.
            ("token_marks", ProviderTokenQuirk.json(event.tokenQuirks)),
            ("connection", .int(event.connection)),
            ("identifier", event.identifier.map { .int(Int($0)) } ?? .null),
            ("feedback_tuples", event.feedbackTuples.map(JSONValue.int) ?? .null),
            ("payload_bytes", .int(event.payloadBytes)),
            // As received; bytes that are not UTF-8 show as U+FFFD.
            ("payload", .string(String(decoding: event.payload, as: UTF8.self))),
        ])
    }
}

/// ISO 8601 in UTC with milliseconds, without a formatter object shared across threads.
enum InboxTime {
    static func format(_ date: Date) -> String {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds % 1000)
    }
}
