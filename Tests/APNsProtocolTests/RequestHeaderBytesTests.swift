// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Testing

@Suite("Provider API request rules over header bytes (the mock gateway's form)")
struct RequestHeaderBytesTests {
    let path = "/3/device/" + String(repeating: "ab", count: 32)
    let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

    /// `headers` laid out as a server receives them: names and values in one byte buffer,
    /// validated with `strings` (a connection's reused values).
    func validate(_ headers: [(String, String)], strings: inout RequestValidator.HeaderStrings) -> Result<ValidatedRequest, APNsReasonError> {
        var bytes: [UInt8] = []
        var fields: [(name: Range<Int>, value: Range<Int>)] = []
        for (name, value) in headers {
            let nameStart = bytes.count
            bytes += name.utf8
            let valueStart = bytes.count
            bytes += value.utf8
            fields.append((nameStart..<valueStart, valueStart..<bytes.count))
        }
        return bytes.withUnsafeBufferPointer { buffer in
            var slots = RequestValidator.HeaderSlots()
            for field in fields { slots.add(name: UnsafeBufferPointer(rebasing: buffer[field.name]), value: field.value) }
            return RequestValidator.validate(method: "POST", path: path, bytes: buffer, slots: slots, body: body, strings: &strings)
        }
    }

    @Test("Only APNs' names fill slots, each once: other names, other cases and other lengths are passed over")
    func slots() throws {
        var strings = RequestValidator.HeaderStrings()
        let request = try validate([("user-agent", "x"), ("APNS-TOPIC", "upper"), ("apns-topicx", "longer"), ("apns-topic", "com.example.app"),
                                    ("content-length", "22"), ("authorization", "bearer a.b.c"), ("apns-priority", "5"),
                                    ("apns-push-type", "background"), ("apns-expiration", "10"), ("apns-collapse-id", "c"),
                                    ("apns-id", "123E4567-E89B-12D3-A456-426614174000")], strings: &strings).get()
        #expect(request.topic == "com.example.app")
        #expect(request.authorization == "bearer a.b.c")
        #expect(request.priority == .conservePower)
        #expect(request.pushType == .background)
        #expect(request.expiration == 10)
        #expect(request.collapseID == "c")
        #expect(request.apnsID == "123e4567-e89b-12d3-a456-426614174000", "lower case, as APNs echoes it")
        for name in ["apns-id", "apns-topic", "authorization", "apns-priority", "apns-push-type", "apns-expiration", "apns-collapse-id"] {
            #expect(throws: APNsReasonError(.duplicateHeaders), "\(name)") {
                try validate([(name, "1"), ("user-agent", "x"), (name, "1")], strings: &strings).get()
            }
        }
    }

    @Test("A connection's repeated values come back equal, and a changed value is never the previous one")
    func reusedStrings() throws {
        var strings = RequestValidator.HeaderStrings()
        let first = try validate([("apns-topic", "com.example.app"), ("authorization", "bearer one")], strings: &strings).get()
        let again = try validate([("apns-topic", "com.example.app"), ("authorization", "bearer one")], strings: &strings).get()
        #expect(again == first)
        let changed = try validate([("apns-topic", "com.example.other"), ("authorization", "bearer one!")], strings: &strings).get()
        #expect(changed.topic == "com.example.other")
        #expect(changed.authorization == "bearer one!")
        // A prefix of the previous value is a different value too.
        let shorter = try validate([("apns-topic", "com.example"), ("authorization", "bearer on")], strings: &strings).get()
        #expect(shorter.topic == "com.example")
        #expect(shorter.authorization == "bearer on")
        // An id repeated in another case is the same id, echoed in lower case either way.
        let lower = try validate([("apns-id", "123e4567-e89b-12d3-a456-42661417400a")], strings: &strings).get()
        let upper = try validate([("apns-id", "123E4567-E89B-12D3-A456-42661417400A")], strings: &strings).get()
        #expect(lower.apnsID == "123e4567-e89b-12d3-a456-42661417400a" && upper.apnsID == lower.apnsID)
        let absent = try validate([], strings: &strings).get()
        #expect(absent.topic == nil && absent.authorization == nil)
    }

    @Test("Bytes that are not UTF-8 are read as the String form reads them, and the checks give the same reasons")
    func sameAsStrings() throws {
        var strings = RequestValidator.HeaderStrings()
        let invalid = String(decoding: [0x63, 0xFF, 0x64], as: UTF8.self)
        let viaBytes = try validate([("apns-collapse-id", invalid)], strings: &strings).get()
        let viaStrings = try RequestValidator.validate(method: "POST", path: path, headers: [(name: "apns-collapse-id", value: invalid)], body: body).get()
        #expect(viaBytes == viaStrings)
        for (name, value, reason) in [("apns-id", "nope", APNsReason.badMessageId), ("apns-expiration", "-1", .badExpirationDate),
                                      ("apns-priority", "11", .badPriority), ("apns-push-type", "Alert", .invalidPushType),
                                      ("apns-collapse-id", String(repeating: "é", count: 33), .badCollapseId)] {
            #expect(throws: APNsReasonError(reason), "\(name): \(value)") { try validate([(name, value)], strings: &strings).get() }
            #expect(throws: APNsReasonError(reason)) {
                try RequestValidator.validate(method: "POST", path: path, headers: [(name: name, value: value)], body: body).get()
            }
        }
    }
}
