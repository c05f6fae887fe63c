// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The deterministic, CI-sized fuzz pass: every harness over its valid seeds and a fixed-seed
/// stream of mutations of them.
///
/// It lives beside the harnesses (not in the test target) so that two runners share it: the
/// plain pass inside `swift test` (HardeningTests) and the `APNsFuzzPass` executable, which
/// scripts/test.sh builds under AddressSanitizer. That executable needs only the libraries, so
/// the sanitized build skips the CLI and every test target.
package enum FuzzPass {
    /// Runs `target`'s seeds and `inputs` mutations; returns the first five violations, each
    /// with the input in hex so it can be replayed.
    package static func violations(of target: FuzzTarget, inputs: Int) throws -> [String] {
        let seeds = try target.seeds()
        for seed in seeds { try target.run(seed) }
        var mutator = Mutator(seeds: seeds, seed: stableSeed(target.rawValue))
        var violations: [String] = []
        for index in 0..<inputs {
            let input = mutator.next()
            do {
                try target.run(input)
            } catch {
                violations.append("\(target.rawValue) input #\(index) (\(input.count) bytes, hex \(hex(input))): \(error)")
                if violations.count >= 5 { break }
            }
        }
        return violations
    }

    /// FNV-1a of the target's name: stable across runs and machines, unlike `hashValue`.
    static func stableSeed(_ name: String) -> UInt64 {
        name.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(min(bytes.count, 4096) * 2)
        for byte in bytes.prefix(4096) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
