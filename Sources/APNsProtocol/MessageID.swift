import Foundation

/// Random canonical lower-case UUIDs (version 4) for `apns-id`, made without a system call
/// each: Foundation's `UUID()` reads the kernel's random source per call, which at a hundred
/// thousand notifications a second is most of the work. A xoshiro256** generator seeded once
/// from the system's random source is plenty for identifiers (they are not secrets).
public final class MessageID: @unchecked Sendable {
    public static let shared = MessageID()

    private let lock = NSLock()
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init() {
        var system = SystemRandomNumberGenerator()
        state = (system.next(), system.next(), system.next(), system.next() | 1)
    }

    /// A new `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx` string.
    public func next() -> String {
        let (high, low) = lock.withLock { (nextWord(), nextWord()) }
        let a = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let b = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        var position = 0
        for (word, count) in [(a, 16), (b, 16)] {
            for shift in stride(from: (count - 1) * 4, through: 0, by: -4) {
                if position == 8 || position == 13 || position == 18 || position == 23 { position += 1 }
                out[position] = digits[Int((word >> UInt64(shift)) & 0xF)]
                position += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func nextWord() -> UInt64 {
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
