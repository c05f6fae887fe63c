// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The legacy binary provider protocol (apns-protocol.md §4): retired by Apple in 2021 but still
/// spoken by older systems. One codec serves both the sender and the mock gateway, so the two
/// cannot drift apart. All integers are big-endian.
package enum LegacyFormat: String, Sendable, CaseIterable {
    /// Command 0: token and payload only; no identifier, no error reply.
    case simple
    /// Command 1: adds identifier and expiry.
    case enhanced
    /// Command 2: a frame of items (token, payload, identifier, expiry, priority).
    case framed

    package var command: UInt8 {
        switch self {
        case .simple: return 0
        case .enhanced: return 1
        case .framed: return 2
        }
    }

    /// Payload limit: 256 bytes for commands 0 and 1, 2048 for command 2.
    package var payloadLimit: Int { self == .framed ? 2048 : 256 }
}

package struct LegacyNotification: Sendable, Equatable {
    package var token: [UInt8]
    package var payload: [UInt8]
    package var identifier: UInt32
    /// UNIX seconds; 0 = do not store.
    package var expiry: UInt32
    /// 10 or 5.
    package var priority: UInt8

    package init(token: [UInt8], payload: [UInt8], identifier: UInt32 = 0, expiry: UInt32 = 0, priority: UInt8 = 10) {
        self.token = token
        self.payload = payload
        self.identifier = identifier
        self.expiry = expiry
        self.priority = priority
    }

    /// The bytes of this notification in `format`.
    package func encoded(_ format: LegacyFormat) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + token.count + 32)
        out.append(format.command)
        switch format {
        case .simple:
            BigEndian.append(UInt16(token.count), to: &out); out += token
            BigEndian.append(UInt16(payload.count), to: &out); out += payload
        case .enhanced:
            BigEndian.append(identifier, to: &out)
            BigEndian.append(expiry, to: &out)
            BigEndian.append(UInt16(token.count), to: &out); out += token
            BigEndian.append(UInt16(payload.count), to: &out); out += payload
        case .framed:
            var items: [UInt8] = []
            items.append(1); BigEndian.append(UInt16(token.count), to: &items); items += token
            items.append(2); BigEndian.append(UInt16(payload.count), to: &items); items += payload
            items.append(3); BigEndian.append(UInt16(4), to: &items); BigEndian.append(identifier, to: &items)
            items.append(4); BigEndian.append(UInt16(4), to: &items); BigEndian.append(expiry, to: &items)
            items.append(5); BigEndian.append(UInt16(1), to: &items); items.append(priority)
            BigEndian.append(UInt32(items.count), to: &out)
            out += items
        }
        return out
    }
}

/// Status codes of the error response.
package enum LegacyStatus: UInt8, Sendable, CaseIterable {
    case noError = 0
    case processingError = 1
    case missingToken = 2
    case missingTopic = 3
    case missingPayload = 4
    case invalidTokenSize = 5
    case invalidTopicSize = 6
    case invalidPayloadSize = 7
    case invalidToken = 8
    case shutdown = 10
    case protocolError = 128
    case unknown = 255

    package var name: String {
        switch self {
        case .noError: return "No errors encountered"
        case .processingError: return "Processing error"
        case .missingToken: return "Missing device token"
        case .missingTopic: return "Missing topic"
        case .missingPayload: return "Missing payload"
        case .invalidTokenSize: return "Invalid token size"
        case .invalidTopicSize: return "Invalid topic size"
        case .invalidPayloadSize: return "Invalid payload size"
        case .invalidToken: return "Invalid token"
        case .shutdown: return "Shutdown"
        case .protocolError: return "Protocol error"
        case .unknown: return "Unknown"
        }
    }
}

/// `u8 8 | u8 status | u32 identifier`: the only thing the gateway ever says, just before it
/// closes the connection and drops everything sent after `identifier`.
package struct LegacyErrorResponse: Sendable, Equatable {
    package static let size = 6
    package let status: LegacyStatus
    package let identifier: UInt32

    package init(status: LegacyStatus, identifier: UInt32) {
        self.status = status
        self.identifier = identifier
    }

    package var encoded: [UInt8] {
        var out: [UInt8] = [8, status.rawValue]
        BigEndian.append(identifier, to: &out)
        return out
    }

    /// Decodes 6 bytes; nil when they are not an error response.
    package init?(bytes: some Collection<UInt8>) {
        let array = Array(bytes.prefix(Self.size))
        guard array.count == Self.size, array[0] == 8 else { return nil }
        status = LegacyStatus(rawValue: array[1]) ?? .unknown
        identifier = BigEndian.uint32(array, at: 2)
    }
}

/// Incremental server-side decoder: feed it bytes as they arrive, take notifications out.
package struct LegacyFrameDecoder: Sendable {
    package enum Event: Sendable, Equatable {
        case notification(LegacyNotification, LegacyFormat)
        /// The stream is bad from here on; the gateway answers (if the command has an
        /// identifier) and closes.
        case invalid(LegacyStatus, identifier: UInt32, format: LegacyFormat?)
    }

    /// Frames larger than this are a protocol error (the largest valid one is ~2.2 KB).
    package static let maximumFrame = 16 * 1024

    private var buffer: [UInt8] = []
    private var start = 0
    private var failed = false

    package init() {}

    package mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 65_536 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete event, or nil when more bytes are needed.
    package mutating func next() -> Event? {
        guard !failed, start < buffer.count else { return nil }
        let available = buffer.count - start
        let event: (Event, Int)?
        switch buffer[start] {
        case 0: event = decodeSimple(available)
        case 1: event = decodeEnhanced(available)
        case 2: event = decodeFramed(available)
        default: event = (.invalid(.protocolError, identifier: 0, format: nil), 0)
        }
        guard let (result, consumed) = event else { return nil }
        if case .invalid = result { failed = true } else { start += consumed }
        return result
    }

    private func u16(_ offset: Int) -> Int { Int(BigEndian.uint16(buffer, at: start + offset)) }
    private func u32(_ offset: Int) -> UInt32 { BigEndian.uint32(buffer, at: start + offset) }
    private func bytes(_ offset: Int, _ count: Int) -> [UInt8] { Array(buffer[(start + offset)..<(start + offset + count)]) }

    private func decodeSimple(_ available: Int) -> (Event, Int)? {
        guard available >= 3 else { return nil }
        let tokenLength = u16(1)
        guard available >= 3 + tokenLength + 2 else { return nil }
        let payloadLength = u16(3 + tokenLength)
        let total = 5 + tokenLength + payloadLength
        guard available >= total else { return nil }
        if tokenLength != 32 { return (.invalid(.invalidTokenSize, identifier: 0, format: .simple), total) }
        if payloadLength == 0 { return (.invalid(.missingPayload, identifier: 0, format: .simple), total) }
        if payloadLength > LegacyFormat.simple.payloadLimit { return (.invalid(.invalidPayloadSize, identifier: 0, format: .simple), total) }
        let note = LegacyNotification(token: bytes(3, tokenLength), payload: bytes(5 + tokenLength, payloadLength))
        return (.notification(note, .simple), total)
    }

    private func decodeEnhanced(_ available: Int) -> (Event, Int)? {
        guard available >= 11 else { return nil }
        let identifier = u32(1), expiry = u32(5)
        let tokenLength = u16(9)
        guard available >= 11 + tokenLength + 2 else { return nil }
        let payloadLength = u16(11 + tokenLength)
        let total = 13 + tokenLength + payloadLength
        guard available >= total else { return nil }
        if tokenLength == 0 { return (.invalid(.missingToken, identifier: identifier, format: .enhanced), total) }
        if tokenLength != 32 { return (.invalid(.invalidTokenSize, identifier: identifier, format: .enhanced), total) }
        if payloadLength == 0 { return (.invalid(.missingPayload, identifier: identifier, format: .enhanced), total) }
        if payloadLength > LegacyFormat.enhanced.payloadLimit { return (.invalid(.invalidPayloadSize, identifier: identifier, format: .enhanced), total) }
        let note = LegacyNotification(token: bytes(11, tokenLength), payload: bytes(13 + tokenLength, payloadLength),
                                      identifier: identifier, expiry: expiry)
        return (.notification(note, .enhanced), total)
    }

    private func decodeFramed(_ available: Int) -> (Event, Int)? {
        guard available >= 5 else { return nil }
        let frameLength = Int(u32(1))
        if frameLength > Self.maximumFrame { return (.invalid(.protocolError, identifier: 0, format: .framed), 0) }
        guard available >= 5 + frameLength else { return nil }
        var token: [UInt8]?, payload: [UInt8]?
        var identifier: UInt32 = 0, expiry: UInt32 = 0, priority: UInt8 = 10
        var offset = 5
        var problem: LegacyStatus?
        while offset < 5 + frameLength {
            guard offset + 3 <= 5 + frameLength else { problem = .protocolError; break }
            let item = buffer[start + offset]
            let length = u16(offset + 1)
            guard offset + 3 + length <= 5 + frameLength else { problem = .protocolError; break }
            let data = bytes(offset + 3, length)
            switch item {
            case 1: token = data
            case 2: payload = data
            case 3: if length == 4 { identifier = BigEndian.uint32(data, at: 0) } else { problem = problem ?? .processingError }
            case 4: if length == 4 { expiry = BigEndian.uint32(data, at: 0) } else { problem = problem ?? .processingError }
            case 5: if length == 1 { priority = data[0] } else { problem = problem ?? .processingError }
            default: problem = problem ?? .processingError
            }
            offset += 3 + length
        }
        let total = 5 + frameLength
        if let problem { return (.invalid(problem, identifier: identifier, format: .framed), total) }
        guard let token, !token.isEmpty else { return (.invalid(.missingToken, identifier: identifier, format: .framed), total) }
        guard token.count == 32 else { return (.invalid(.invalidTokenSize, identifier: identifier, format: .framed), total) }
        guard let payload, !payload.isEmpty else { return (.invalid(.missingPayload, identifier: identifier, format: .framed), total) }
        guard payload.count <= LegacyFormat.framed.payloadLimit else { return (.invalid(.invalidPayloadSize, identifier: identifier, format: .framed), total) }
        guard priority == 10 || priority == 5 else { return (.invalid(.processingError, identifier: identifier, format: .framed), total) }
        return (.notification(LegacyNotification(token: token, payload: payload, identifier: identifier, expiry: expiry, priority: priority), .framed), total)
    }
}

/// The feedback service's tuples: `u32 timestamp | u16 tokenLength | token`.
package struct FeedbackTuple: Sendable, Equatable {
    package let timestamp: UInt32
    package let token: [UInt8]

    package init(timestamp: UInt32, token: [UInt8]) {
        self.timestamp = timestamp
        self.token = token
    }

    package var encoded: [UInt8] {
        var out: [UInt8] = []
        BigEndian.append(timestamp, to: &out)
        BigEndian.append(UInt16(token.count), to: &out)
        return out + token
    }

    /// Decodes every complete tuple; `remainder` is the count of trailing bytes that did not
    /// form one (a connection cut mid-tuple).
    package static func decodeAll(_ bytes: [UInt8]) -> (tuples: [FeedbackTuple], remainder: Int) {
        var tuples: [FeedbackTuple] = []
        var offset = 0
        while bytes.count - offset >= 6 {
            let length = Int(BigEndian.uint16(bytes, at: offset + 4))
            guard bytes.count - offset >= 6 + length else { break }
            tuples.append(FeedbackTuple(timestamp: BigEndian.uint32(bytes, at: offset), token: Array(bytes[(offset + 6)..<(offset + 6 + length)])))
            offset += 6 + length
        }
        return (tuples, bytes.count - offset)
    }
}

enum BigEndian {
    static func append(_ value: UInt16, to out: inout [UInt8]) {
        out.append(UInt8(value >> 8)); out.append(UInt8(value & 0xFF))
    }

    static func append(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(value >> 24)); out.append(UInt8((value >> 16) & 0xFF))
        out.append(UInt8((value >> 8) & 0xFF)); out.append(UInt8(value & 0xFF))
    }

    static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
