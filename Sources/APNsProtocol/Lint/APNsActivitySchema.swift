// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A JSON description of a Live Activity's Swift types, the app's `ActivityAttributes` and its
/// `ContentState`, so lint can check a payload's fields as ActivityKit's decoder will:
///
/// ```json
/// {"attributes": {"homeTeam": "String", "kickoff": "Date"},
///  "content-state": {"score": "Int", "note": "String?", "scorers": ["String"], "clock": {"minute": "Int"}}}
/// ```
///
/// A field's type is `String`, `Int`, `Double`, `Bool`, `Date` or `Any` (any case), `?` after it
/// for an optional; an array is a one-element JSON array of the element's type; a nested
/// struct is an object of its fields (a name ending in `?` makes any field optional).
public struct APNsActivitySchema: Sendable, Equatable {
    /// A field's Swift type, as far as a JSON value can be checked against it.
    public indirect enum FieldType: Sendable, Equatable {
        /// `String`: a JSON string.
        case string
        /// `Int`: a JSON number without a fraction.
        case int
        /// `Double`: any JSON number.
        case double
        /// `Bool`: `true` or `false`.
        case bool
        /// `Date`: a number, as ActivityKit's decoder reads dates (seconds since 2001,
        /// apns-protocol.md §8); a date string is a finding.
        case date
        /// `Any`: not checked, for a type the schema cannot describe.
        case any
        /// `[Element]`: a JSON array whose every element is checked.
        case array(FieldType)
        /// A nested struct: a JSON object with these fields.
        case object([Field])
    }

    /// One stored property of the app's type: ActivityKit fails to decode the whole payload when
    /// a field that is not optional is missing or has another type.
    public struct Field: Sendable, Equatable {
        /// The JSON key (the property's name, or its `CodingKeys` value).
        public let name: String
        /// What the value must be.
        public let type: FieldType
        /// May be missing or `null` (`String?` in the schema).
        public let optional: Bool
    }

    /// The fields of the app's `ActivityAttributes`, checked in a push-to-start's `attributes`.
    public let attributes: [Field]
    /// The fields of its `ContentState`, checked in every payload's `content-state`.
    public let contentState: [Field]

    /// A sentence naming what is wrong in a schema file (the CLI adds the file's name).
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The sentence, naming the field and what its type should look like.
        public let description: String
    }

    /// Reads a schema (JSON, depth checked by `JSONSyntax` first, as payloads are).
    public init(parsing bytes: [UInt8]) throws(Problem) {
        guard JSONSyntax.isObject(bytes), case .object(let members)? = JSONTreeParser.parse(bytes) else {
            throw Problem(description: "is not a JSON object (or nests deeper than \(JSONSyntax.maximumDepth) levels)")
        }
        for (key, _) in members where key != "attributes" && key != "content-state" {
            throw Problem(description: "has the key \"\(key)\"; a schema has only \"attributes\" and \"content-state\"")
        }
        func fields(_ key: String) throws(Problem) -> [Field] {
            guard let value = members.first(where: { $0.0 == key })?.1 else { return [] }
            guard case .object(let spec) = value else { throw Problem(description: "has \"\(key)\" as \(value.kindName); it must be an object of field names and types") }
            return try Self.fields(spec, path: key)
        }
        attributes = try fields("attributes")
        contentState = try fields("content-state")
        if attributes.isEmpty && contentState.isEmpty {
            throw Problem(description: "describes no fields; give \"attributes\" and \"content-state\" objects of field names and types")
        }
    }

    private static func fields(_ spec: [(String, JSONValue)], path: String) throws(Problem) -> [Field] {
        var result: [Field] = []
        for (rawName, value) in spec {
            var name = rawName
            var optional = false
            if name.hasSuffix("?") { name.removeLast(); optional = true }
            let (type, typeOptional) = try fieldType(value, path: "\(path).\(name)")
            result.append(Field(name: name, type: type, optional: optional || typeOptional))
        }
        return result
    }

    private static func fieldType(_ value: JSONValue, path: String) throws(Problem) -> (FieldType, Bool) {
        switch value {
        case .string(var text):
            var optional = false
            if text.hasSuffix("?") { text.removeLast(); optional = true }
            let known: [String: FieldType] = ["string": .string, "int": .int, "double": .double, "float": .double, "bool": .bool, "date": .date, "any": .any]
            guard let type = known[text.lowercased()] else {
                throw Problem(description: "gives \(path) the type \"\(text)\"; use String, Int, Double, Bool, Date or Any (with ? for an optional), [Type] or an object")
            }
            return (type, optional)
        case .array(let items) where items.count == 1:
            let (element, _) = try fieldType(items[0], path: "\(path)[]")
            return (.array(element), false)
        case .object(let members):
            return (.object(try fields(members, path: path)), false)
        default:
            throw Problem(description: "gives \(path) \(value.kindName); a type is a name such as \"Int\", a one-element array or an object")
        }
    }
}
