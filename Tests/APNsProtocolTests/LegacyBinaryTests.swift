// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Testing

@Suite("Legacy binary protocol and feedback tuples")
struct LegacyBinaryTests {
    let token = (0..<32).map { UInt8($0) }
    let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

    @Test("Every format round-trips through the decoder, byte by byte", arguments: LegacyFormat.allCases)
    func roundTrip(format: LegacyFormat) {
        let note = LegacyNotification(token: token, payload: payload, identifier: 0x01020304, expiry: 0x0A0B0C0D, priority: 5)
        let bytes = note.encoded(format)
        #expect(bytes[0] == format.command)
        var decoder = LegacyFrameDecoder()
        var events: [LegacyFrameDecoder.Event] = []
        for byte in bytes + bytes {
            decoder.append([byte])
            while let event = decoder.next() { events.append(event) }
        }
        #expect(events.count == 2)
        guard case .notification(let decoded, let decodedFormat) = events[0] else { Issue.record("not a notification"); return }
        #expect(decodedFormat == format)
        #expect(decoded.token == token && decoded.payload == payload)
        if format != .simple { #expect(decoded.identifier == 0x01020304 && decoded.expiry == 0x0A0B0C0D) }
        if format == .framed { #expect(decoded.priority == 5) }
    }

    @Test("The framed layout matches apns-protocol.md §4 byte for byte")
    func framedLayout() {
        let bytes = LegacyNotification(token: token, payload: Array("{}".utf8), identifier: 7, expiry: 0, priority: 10).encoded(.framed)
        // 2 | len | 1 0020 token | 2 0002 {} | 3 0004 id | 4 0004 exp | 5 0001 prio
        let itemsLength: UInt8 = 58 // (3+32) + (3+2) + (3+4) + (3+4) + (3+1)
        #expect(Array(bytes[0..<5]) == [2, 0, 0, 0, itemsLength])
        #expect(Array(bytes[5..<8]) == [1, 0, 32])
        #expect(Array(bytes.suffix(4)) == [5, 0, 1, 10])
    }

    @Test("Bad frames give the documented status with the identifier")
    func invalidFrames() {
        func first(_ bytes: [UInt8]) -> LegacyFrameDecoder.Event? {
            var decoder = LegacyFrameDecoder()
            decoder.append(bytes)
            return decoder.next()
        }
        #expect(first(LegacyNotification(token: Array(token.prefix(31)), payload: payload, identifier: 9).encoded(.framed)) == .invalid(.invalidTokenSize, identifier: 9, format: .framed))
        #expect(first(LegacyNotification(token: token, payload: [], identifier: 9).encoded(.framed)) == .invalid(.missingPayload, identifier: 9, format: .framed))
        #expect(first(LegacyNotification(token: token, payload: Array(repeating: 0x20, count: 2049), identifier: 9).encoded(.framed)) == .invalid(.invalidPayloadSize, identifier: 9, format: .framed))
        #expect(first(LegacyNotification(token: token, payload: Array(repeating: 0x20, count: 257), identifier: 4).encoded(.enhanced)) == .invalid(.invalidPayloadSize, identifier: 4, format: .enhanced))
        #expect(first(LegacyNotification(token: token, payload: payload, identifier: 4, priority: 7).encoded(.framed)) == .invalid(.processingError, identifier: 4, format: .framed))
        #expect(first([9, 0, 0]) == .invalid(.protocolError, identifier: 0, format: nil))
        #expect(first([2, 0xFF, 0xFF, 0xFF, 0xFF]) == .invalid(.protocolError, identifier: 0, format: .framed))
    }

    @Test("Error responses and feedback tuples encode and decode")
    func responses() {
        let response = LegacyErrorResponse(status: .invalidToken, identifier: 0xDEADBEEF)
        #expect(response.encoded == [8, 8, 0xDE, 0xAD, 0xBE, 0xEF])
        #expect(LegacyErrorResponse(bytes: response.encoded) == response)
        #expect(LegacyErrorResponse(bytes: [7, 8, 0, 0, 0, 0]) == nil)
        let tuples = [FeedbackTuple(timestamp: 1_700_000_000, token: token), FeedbackTuple(timestamp: 5, token: Array(token.reversed()))]
        let bytes = tuples.flatMap(\.encoded)
        let decoded = FeedbackTuple.decodeAll(bytes + [0, 0, 0])
        #expect(decoded.tuples == tuples)
        #expect(decoded.remainder == 3)
    }
}
