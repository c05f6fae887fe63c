// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A Live Activity's `content-state` and `attributes` against the app's types
/// (`APNsActivitySchema`), as ActivityKit decodes them: a `JSONDecoder` at its default
/// strategies (apns-protocol.md §8), where a missing non-optional field, a wrong type or a
/// `null` for a non-optional fails the whole decode and the update is dropped.
extension LintPass {
    /// A `Date` under the default strategy is seconds since 2001-01-01; a number past this
    /// (the year 2048 read that way) is almost surely UNIX seconds or milliseconds.
    static let unixSecondsThreshold = 1_500_000_000.0

    mutating func checkAgainstSchema(event: LiveActivityPayload.Event?) {
        guard let schema = request.schema else { return }
        if case .object(let state)? = aps("content-state"), !schema.contentState.isEmpty {
            if !swapped(state, expected: schema.contentState, other: schema.attributes, path: "aps.content-state", expectedName: "ContentState", otherName: "ActivityAttributes") {
                check(state, against: schema.contentState, path: "aps.content-state")
            }
        }
        if event == .start, case .object(let attributes)? = aps("attributes"), !schema.attributes.isEmpty {
            if !swapped(attributes, expected: schema.attributes, other: schema.contentState, path: "aps.attributes", expectedName: "ActivityAttributes", otherName: "ContentState") {
                check(attributes, against: schema.attributes, path: "aps.attributes")
            }
        }
    }

    /// True (and reported) when `members` names more of the other type's fields than of its own.
    private mutating func swapped(_ members: [(String, JSONValue)], expected: [APNsActivitySchema.Field], other: [APNsActivitySchema.Field],
                                  path: String, expectedName: String, otherName: String) -> Bool {
        let keys = Set(members.map(\.0))
        let own = keys.intersection(expected.map(\.name)).count
        let theirs = keys.intersection(other.map(\.name)).count
        guard theirs > own else { return false }
        add(APNsLintRules.laSchemaSwapped, path, "\(path) holds the \(otherName) fields (\(keys.intersection(other.map(\.name)).sorted().joined(separator: ", "))), not the \(expectedName) ones; content-state and attributes look swapped. Put ActivityAttributes in aps.attributes and ContentState in aps.content-state.")
        return true
    }

    private mutating func check(_ members: [(String, JSONValue)], against fields: [APNsActivitySchema.Field], path: String) {
        for field in fields {
            let fieldPath = "\(path).\(field.name)"
            guard let value = members.first(where: { $0.0 == field.name })?.1 else {
                if !field.optional {
                    add(APNsLintRules.laSchemaMissingField, fieldPath, "\(fieldPath) is missing and the app's field is not optional; decoding fails and the device drops the update. Add it.")
                }
                continue
            }
            check(value, as: field.type, optional: field.optional, path: fieldPath)
        }
        let names = Set(fields.map(\.name))
        for (key, _) in members where !names.contains(key) {
            add(APNsLintRules.laSchemaUnknownField, "\(path).\(key)", "\(path).\(key) is not a field of the app's type; the decoder ignores it. Check the spelling (Swift names are case-sensitive and usually camelCase).")
        }
    }

    private mutating func check(_ value: JSONValue, as type: APNsActivitySchema.FieldType, optional: Bool, path: String) {
        if value == .null {
            if !optional {
                add(APNsLintRules.laSchemaNull, path, "\(path) is null but the app's field is not optional; decoding fails and the device drops the update. Send a value, or make the field optional in the app.")
            }
            return
        }
        switch type {
        case .any: return
        case .string: if value.stringValue == nil { mismatch(path, value, "text") }
        case .int: if value.integer == nil { mismatch(path, value, "a whole number") }
        case .double: if value.number == nil { mismatch(path, value, "a number") }
        case .bool: if case .bool = value {} else { mismatch(path, value, "true or false") }
        case .date: checkDate(value, path: path)
        case .array(let element):
            guard case .array(let items) = value else { return mismatch(path, value, "an array") }
            for (index, item) in items.enumerated() { check(item, as: element, optional: false, path: "\(path)[\(index)]") }
        case .object(let fields):
            guard case .object(let members) = value else { return mismatch(path, value, "an object") }
            check(members, against: fields, path: path)
        }
    }

    private mutating func mismatch(_ path: String, _ value: JSONValue, _ expected: String) {
        add(APNsLintRules.laSchemaType, path, "\(path) is \(value.kindName) but the app's field takes \(expected); decoding fails and the device drops the update.")
    }

    private mutating func checkDate(_ value: JSONValue, path: String) {
        guard let seconds = value.number else {
            if case .string(let text) = value {
                add(APNsLintRules.laSchemaDateString, path, "\(path) is the text \"\(text)\" but the app's field is a Date, which ActivityKit's decoder reads as a number (seconds since 2001-01-01); decoding fails and the device drops the update. Send the number.")
            } else {
                mismatch(path, value, "a Date (a number: seconds since 2001-01-01)")
            }
            return
        }
        if seconds >= Self.unixSecondsThreshold {
            add(APNsLintRules.laSchemaDateUnix, path, "\(path) is \(Self.shown(seconds)), which looks like UNIX \(seconds >= Self.millisecondsThreshold ? "milliseconds" : "seconds"); ActivityKit's decoder reads a Date as seconds since 2001-01-01, so the app would show a date about 31 years late. Subtract 978307200 from UNIX seconds.")
        }
    }
}
