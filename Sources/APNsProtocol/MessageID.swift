// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized

/// Random canonical lower-case UUIDs (version 4) for `apns-id`, made without a system call
/// each: Foundation's `UUID()` reads the kernel's random source per call, which at a hundred
/// thousand notifications a second is most of the work. A xoshiro256** generator seeded once
/// from the system's random source is plenty for identifiers (they are not secrets).
///
/// A value for callers that already serialise their work (the mock gateway's handler makes
/// two ids per request under its own lock); everyone else uses `MessageID.shared`.
package struct MessageIDGenerator: Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    package init() {
        var system = SystemRandomNumberGenerator()
        state = (system.next(), system.next(), system.next(), system.next() | 1)
    }

    /// A new `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx` string.
    package mutating func next() -> String {
        // Written straight into the String's storage: one allocation per id.
        String(unsafeUninitializedCapacity: Self.textLength) { buffer in
            write(to: UnsafeMutableRawPointer(buffer.baseAddress!))
            return Self.textLength
        }
    }

    /// The length of an id's text: 32 hex digits and 4 dashes.
    package static let textLength = 36

    /// A new id's `textLength` bytes of text, stored at `out` (an answer's header bytes, without
    /// a String in between).
    package mutating func write(to out: UnsafeMutableRawPointer) {
        let a = (nextWord() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let b = (nextWord() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        // The words' bytes high first.
        var bigEndian = (a.bigEndian, b.bigEndian)
        withUnsafeBytes(of: &bigEndian) { raw in
            // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx: bytes 0-3, 4-5, 6-7, 8-9 and 10-15.
            func group(_ start: Int, _ end: Int, at position: Int) {
                Hex.write(UnsafeRawBufferPointer(rebasing: raw[start..<end]), to: out, at: position)
            }
            group(0, 4, at: 0)
            group(4, 6, at: 9)
            group(6, 8, at: 14)
            group(8, 10, at: 19)
            group(10, 16, at: 24)
        }
        for dash in 0..<4 { out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 8 + 5 * dash, as: UInt8.self) }
    }

    private mutating func nextWord() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 { (value << count) | (value >> (64 - count)) }
}

/// A `MessageIDGenerator` behind a lock, for any thread.
package final class MessageID: Sendable {
    package static let shared = MessageID()

    private let generator = Locked(MessageIDGenerator())

    package init() {}

    /// A new `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx` string.
    package func next() -> String { generator.withLock { $0.next() } }
}

extension MessageID {
    /// `uuid` as APNs writes an `apns-id`: canonical lower-case text.
    package static func text(_ uuid: UUID) -> String { uuid.uuidString.lowercased() }
}
