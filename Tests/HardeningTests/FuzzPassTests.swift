import APNsFuzzHarness
import Foundation
import Testing

extension Hardening {
    /// The CI-sized pass of issue 7: every fuzz harness body over a fixed-seed corpus of mutated
    /// valid fixtures. No input may trap, and every rejection must be a typed error with a
    /// message (the harnesses enforce that, and the rules accepted values must obey).
    ///
    /// `APNSKIT_FUZZ_PASS_INPUTS` overrides the count (the ASan run in scripts/test.sh uses it).
    @Suite("Hardening: every fuzz harness over fixed-seed mutations of valid fixtures")
    struct FuzzPassTests {
        static let inputsPerTarget = ProcessInfo.processInfo.environment["APNSKIT_FUZZ_PASS_INPUTS"].flatMap(Int.init) ?? 10_000

        @Test("No crash, only typed rejections", arguments: FuzzTarget.allCases)
        func harness(_ target: FuzzTarget) async throws {
            let violations = try await Hardening.offPool { try Self.violations(of: target, inputs: Self.inputsPerTarget) }
            for violation in violations { Issue.record(Comment(rawValue: violation)) }
        }

        /// Runs the seeds and `inputs` mutations through `target`; the first five violations.
        static func violations(of target: FuzzTarget, inputs: Int) throws -> [String] {
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
            bytes.prefix(4096).map { String(format: "%02x", $0) }.joined()
        }
    }
}
