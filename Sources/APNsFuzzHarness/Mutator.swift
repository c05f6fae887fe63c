// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A tiny seeded PRNG (SplitMix64): the deterministic pass must produce the same inputs on
/// every machine and every run, which `SystemRandomNumberGenerator` cannot promise.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// libFuzzer-style mutations without libFuzzer: bit flips, interesting bytes, inserts,
/// deletes, truncation, duplication and splicing of valid fixtures. Stacks one to four of
/// them per input so damage also lands past the first broken length field.
package struct Mutator: Sendable {
    private var random: SplitMix64
    private let seeds: [[UInt8]]
    /// Bytes that often sit at decision points: DER length forms, tags, ASCII separators.
    private static let interesting: [UInt8] = [0x00, 0x01, 0x02, 0x04, 0x05, 0x0A, 0x0C, 0x20, 0x2D, 0x30, 0x3A, 0x7B, 0x7F, 0x80, 0x81, 0x82, 0x84, 0xFF]

    package init(seeds: [[UInt8]], seed: UInt64) {
        precondition(!seeds.isEmpty, "a mutator needs at least one seed input")
        self.seeds = seeds
        random = SplitMix64(seed: seed)
    }

    /// The next mutated input.
    package mutating func next() -> [UInt8] {
        var bytes = seeds[pick(seeds.count)]
        for _ in 0...pick(4) { mutate(&bytes) }
        return bytes
    }

    private mutating func pick(_ upperBound: Int) -> Int {
        upperBound <= 1 ? 0 : Int(random.next() % UInt64(upperBound))
    }

    private mutating func mutate(_ bytes: inout [UInt8]) {
        let count = bytes.count
        switch pick(9) {
        case 0 where count > 0: // flip 1-4 bits
            for _ in 0...pick(4) { bytes[pick(count)] ^= 1 << UInt8(pick(8)) }
        case 1 where count > 0: // an interesting byte
            bytes[pick(count)] = Self.interesting[pick(Self.interesting.count)]
        case 2 where count > 0: // a random byte
            bytes[pick(count)] = UInt8(truncatingIfNeeded: random.next())
        case 3: // insert 1-8 bytes
            let at = pick(count + 1)
            let inserted = (0...pick(8)).map { _ in pick(2) == 0 ? Self.interesting[pick(Self.interesting.count)] : UInt8(truncatingIfNeeded: random.next()) }
            bytes.insert(contentsOf: inserted, at: at)
        case 4 where count > 0: // delete 1-16 bytes
            let at = pick(count)
            bytes.removeSubrange(at..<min(count, at + 1 + pick(16)))
        case 5 where count > 0: // truncate
            bytes.removeLast(count - pick(count))
        case 6 where count > 1: // duplicate a range in place
            let from = pick(count), length = 1 + pick(min(64, count - from))
            bytes.insert(contentsOf: bytes[from..<(from + length)], at: pick(count + 1))
        case 7: // splice: our prefix, another seed's suffix
            let other = seeds[pick(seeds.count)]
            bytes = Array(bytes.prefix(pick(count + 1))) + other.suffix(pick(other.count + 1))
        default: // overwrite a big-endian length-sized field with an extreme value
            guard count >= 2 else { bytes.append(UInt8(truncatingIfNeeded: random.next())); return }
            let at = pick(count - 1)
            let values: [(UInt8, UInt8)] = [(0xFF, 0xFF), (0x00, 0x00), (0x7F, 0xFF), (0x80, 0x00), (0x00, 0x20)]
            let value = values[pick(values.count)]
            bytes[at] = value.0
            bytes[at + 1] = value.1
        }
    }
}
