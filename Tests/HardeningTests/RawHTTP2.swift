// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// Just enough HTTP/2 framing and HPACK (RFC 9113, RFC 7541) to write the frames a hostile
/// peer sends and read back what it gets: nghttp2 refuses to encode such header blocks, so
/// the tests build them byte by byte.
enum RawHTTP2 {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let maxFrameSize = 16_384

    enum FrameType: UInt8 { case data = 0, headers = 1, rstStream = 3, settings = 4, goaway = 7, continuation = 9 }
    static let endStream: UInt8 = 0x1
    static let endHeaders: UInt8 = 0x4

    static func frame(_ type: FrameType, flags: UInt8 = 0, stream: UInt32 = 0, _ payload: [UInt8] = []) -> [UInt8] {
        let length = UInt32(payload.count)
        return [UInt8(length >> 16), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type.rawValue, flags,
                UInt8(stream >> 24), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    /// `block` as one HEADERS frame and as many CONTINUATION frames as it takes.
    static func headerFrames(_ block: [UInt8], stream: UInt32, endStream end: Bool) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        var start = 0
        repeat {
            let stop = min(block.count, start + maxFrameSize)
            var flags: UInt8 = stop == block.count ? endHeaders : 0
            if start == 0 && end { flags |= endStream }
            frames.append(frame(start == 0 ? .headers : .continuation, flags: flags, stream: stream, Array(block[start..<stop])))
            start = stop
        } while start < block.count
        return frames
    }

    // MARK: HPACK

    /// An HPACK integer with an `prefix`-bit prefix, OR-ed into `first` (section 5.1).
    static func integer(_ value: Int, prefix: Int, first: UInt8 = 0) -> [UInt8] {
        let limit = (1 << prefix) - 1
        guard value >= limit else { return [first | UInt8(value)] }
        var bytes = [first | UInt8(limit)]
        var rest = value - limit
        while rest >= 128 {
            bytes.append(UInt8(rest & 127) | 128)
            rest >>= 7
        }
        return bytes + [UInt8(rest)]
    }

    static func string(_ bytes: [UInt8]) -> [UInt8] { integer(bytes.count, prefix: 7) + bytes }

    /// A literal field without indexing, new name (section 6.2.2).
    static func literal(_ name: String, _ value: [UInt8]) -> [UInt8] { [0x00] + string(Array(name.utf8)) + string(value) }
    static func literal(_ name: String, _ value: String) -> [UInt8] { literal(name, Array(value.utf8)) }

    /// A literal field with incremental indexing, new name: it becomes dynamic entry 62 (6.2.1).
    static func indexedLiteral(_ name: String, _ value: [UInt8]) -> [UInt8] { [0x40] + string(Array(name.utf8)) + string(value) }

    /// A reference to the newest dynamic table entry: one byte that decodes to a whole field.
    static let newestEntry: [UInt8] = [0x80 | 62]

    /// The pseudo-headers of an APNs request (`:method POST`, `:scheme https` from the static table).
    static func requestStart(path: String) -> [UInt8] {
        [0x83, 0x87] + literal(":path", path) + literal(":authority", "127.0.0.1")
    }

    /// The "HPACK bomb" this exists for: one 4,000-byte field put in the dynamic table, then
    /// referenced with one byte each, filling `frames` frames (HEADERS + CONTINUATIONs). Nine
    /// frames (nghttp2 accepts at most 8 CONTINUATIONs) decode to about 575 MB of headers.
    static func bomb(start: [UInt8], frames: Int = 9) -> [UInt8] {
        var block = start + indexedLiteral("x-bomb", Array(repeating: UInt8(ascii: "a"), count: 4000))
        block += Array(repeating: newestEntry[0], count: frames * maxFrameSize - block.count)
        return block
    }

    // MARK: reading

    struct Frame {
        let type: UInt8
        let flags: UInt8
        let stream: UInt32
        let payload: [UInt8]

        /// For a GOAWAY frame: the error code.
        var goawayCode: UInt32? {
            guard type == FrameType.goaway.rawValue, payload.count >= 8 else { return nil }
            return payload[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    /// The complete frames in `bytes` (after the client preface, if it starts with one).
    static func frames(in bytes: [UInt8]) -> [Frame] {
        var index = bytes.starts(with: preface) ? preface.count : 0
        var frames: [Frame] = []
        while index + 9 <= bytes.count {
            let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
            guard index + 9 + length <= bytes.count else { break }
            let stream = bytes[(index + 5)..<(index + 9)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
            frames.append(Frame(type: bytes[index + 3], flags: bytes[index + 4], stream: stream, payload: Array(bytes[(index + 9)..<(index + 9 + length)])))
            index += 9 + length
        }
        return frames
    }
}
