// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender
import CLIFormats

/// Harnesses over the pure-Swift wire parsers. These cannot throw untyped errors by
/// construction, so besides "no trap" each checks the rules an accepted value must obey.
enum ProtocolHarnesses {
    static func deviceToken(_ input: [UInt8]) throws {
        let token: APNsDeviceToken
        do {
            token = try APNsDeviceToken(parsing: String(decoding: input, as: UTF8.self))
        } catch let error as APNsDeviceTokenError {
            try Check.require(!error.reason.isEmpty, "APNsDeviceTokenError with an empty reason")
            return
        }
        try Check.require((APNsDeviceToken.minimumLength...APNsDeviceToken.maximumLength).contains(token.bytes.count), "accepted a \(token.bytes.count)-byte token")
        try Check.require((try? APNsDeviceToken(parsing: token.hex)) == token, "token \(token.hex) does not survive hex round trip")
    }

    static func json(_ input: [UInt8]) throws {
        let isObject = JSONSyntax.isObject(input)
        let isValue = JSONSyntax.isValue(input)
        try Check.require(!isObject || isValue, "an object that is not a value")
        if isObject {
            let first = input.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            try Check.require(first == UInt8(ascii: "{"), "an object that does not start with {")
        }
        // The payload lint reads the same bytes (as the mock does every accepted payload):
        // no trap, and a payload that is not an object is always said to be one.
        // The Live Activity pass also has a schema and a previous timestamp, so a hostile
        // number reaches the schema's Date rule and the "older than" comparison too.
        for (pushType, schema) in [(APNsPushType.alert, nil), (.liveactivity, nil), (.liveactivity, Self.schema)] {
            let report = APNsPayloadLint.lint(APNsLintRequest(payload: input, pushType: pushType, topic: "com.example.app", priority: 10,
                                                              schema: schema, previousTimestamp: schema == nil ? nil : 1_700_000_000))
            if !isObject && input.count <= APNsPushType.voip.payloadLimit {
                try Check.require(report.findings.map(\.rule) == [APNsLintRules.payloadNotObject], "lint did not call a non-object payload one")
            }
            try Check.require(report.findings.allSatisfy { !$0.message.isEmpty }, "a lint finding without a sentence")
        }
    }

    /// A schema with a Date in both ContentState and ActivityAttributes (SchemaLint's date rule).
    private static let schema = try? APNsActivitySchema(parsing: Array(#"{"attributes": {"since": "Date"}, "content-state": {"at": "Date", "n": "Int"}}"#.utf8))

    static func batchLine(_ input: [UInt8]) throws {
        switch BatchLine.parse(input) {
        case .skip:
            break
        case .invalid(let message), .badToken(let message):
            try Check.require(!message.isEmpty, "BatchLine.invalid with an empty message")
        case .entry(_, let payload, _):
            if let payload { try Check.require(JSONSyntax.isObject(payload), "BatchLine accepted a payload that is not a JSON object") }
        }
    }

    /// Input: `method \n path \n (name:value \n)* \n body`, so seeds stay readable and the
    /// fuzzer can reach every header rule by editing text.
    static func request(_ input: [UInt8]) throws {
        var split = input.count
        for index in input.indices.dropLast() where input[index] == 0x0A && input[index + 1] == 0x0A {
            split = index
            break
        }
        let body = split < input.count ? Array(input[(split + 2)...]) : []
        var lines = input[..<split].split(separator: 0x0A, omittingEmptySubsequences: false)[...]
        func text(_ line: ArraySlice<UInt8>?) -> String { String(decoding: line ?? [], as: UTF8.self) }
        let method = text(lines.popFirst())
        let path = text(lines.popFirst())
        let headers: [RequestValidator.Header] = lines.map { line in
            let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
            return (name: text(line[..<colon]), value: text(line[colon...].dropFirst()))
        }
        switch RequestValidator.validate(method: method, path: path, headers: headers, body: body) {
        case .failure:
            break
        case .success(let request):
            try Check.require(method == "POST" && path.lowercased() == RequestValidator.pathPrefix + request.token.hex,
                              "accepted \(method) \(path) for token \(request.token.hex)")
            try Check.require(!body.isEmpty && request.payloadSize == body.count, "accepted an empty body or miscounted it")
            try Check.require(body.count <= (request.pushType ?? .alert).payloadLimit, "accepted a body over the limit")
            if let collapse = request.collapseID { try Check.require(collapse.utf8.count <= 64, "accepted a long collapse id") }
        }
    }

    /// Byte 0 seeds the chunk sizes; the rest is the stream. Whole or chunked, the decoder
    /// must report the same events, and every notification must obey the protocol's limits.
    static func legacyFrames(_ input: [UInt8]) throws {
        guard let seed = input.first else { return }
        let stream = Array(input.dropFirst())
        var whole = LegacyFrameDecoder()
        whole.append(stream)
        let expected = drain(&whole)
        var chunked = LegacyFrameDecoder()
        var events: [LegacyFrameDecoder.Event] = []
        var random = SplitMix64(seed: UInt64(seed))
        var offset = 0
        while offset < stream.count {
            let size = min(stream.count - offset, 1 + Int(random.next() % 64))
            chunked.append(stream[offset..<(offset + size)])
            events += drain(&chunked)
            offset += size
        }
        try Check.require(events == expected, "chunking changed the decoded events (\(events.count) vs \(expected.count))")
        for event in expected {
            guard case .notification(let note, let format) = event else { continue }
            try Check.require(note.token.count == 32, "accepted a \(note.token.count)-byte token")
            try Check.require(!note.payload.isEmpty && note.payload.count <= format.payloadLimit, "accepted a \(note.payload.count)-byte payload")
            try Check.require(format != .framed || note.priority == 10 || note.priority == 5, "accepted priority \(note.priority)")
        }
    }

    private static func drain(_ decoder: inout LegacyFrameDecoder) -> [LegacyFrameDecoder.Event] {
        var events: [LegacyFrameDecoder.Event] = []
        while let event = decoder.next() {
            events.append(event)
            if case .invalid = event { break }
        }
        return events
    }

    static func legacyReplies(_ input: [UInt8]) throws {
        if let response = LegacyErrorResponse(bytes: input) {
            try Check.require(input.count >= LegacyErrorResponse.size && input[0] == 8, "decoded an error response from \(input.count) bytes")
            try Check.require(Array(response.encoded[2...]) == Array(input[2..<6]), "error response identifier mangled")
        } else {
            try Check.require(input.count < LegacyErrorResponse.size || input[0] != 8, "refused a well-formed error response")
        }
        let (tuples, remainder) = FeedbackTuple.decodeAll(input)
        let consumed = tuples.flatMap(\.encoded)
        try Check.require(consumed.count + remainder == input.count && consumed == Array(input.prefix(consumed.count)),
                          "feedback tuples do not account for the input bytes")
        if remainder >= 6 {
            let declared = Int(input[input.count - remainder + 4]) << 8 | Int(input[input.count - remainder + 5])
            try Check.require(remainder < 6 + declared, "feedback decoding stopped before a complete tuple")
        }
    }
}
