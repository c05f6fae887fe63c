// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsFuzzHarness
import Foundation
import Testing

extension Hardening {
    /// The CI-sized pass of issue 7: every fuzz harness body over a fixed-seed corpus of mutated
    /// valid fixtures. No input may trap, and every rejection must be a typed error with a
    /// message (the harnesses enforce that, and the rules accepted values must obey).
    ///
    /// `APNSKIT_FUZZ_PASS_INPUTS` overrides the count. scripts/test.sh runs the same pass under
    /// AddressSanitizer through the `APNsFuzzPass` executable.
    @Suite("Hardening: every fuzz harness over fixed-seed mutations of valid fixtures")
    struct FuzzPassTests {
        static let inputsPerTarget = ProcessInfo.processInfo.environment["APNSKIT_FUZZ_PASS_INPUTS"].flatMap(Int.init) ?? 10_000

        @Test("No crash, only typed rejections", arguments: FuzzTarget.allCases)
        func harness(_ target: FuzzTarget) async throws {
            let violations = try await Hardening.offPool { try FuzzPass.violations(of: target, inputs: Self.inputsPerTarget) }
            for violation in violations { Issue.record(Comment(rawValue: violation)) }
        }
    }
}
