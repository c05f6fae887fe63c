// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsFuzzHarness
import Foundation

// The deterministic fuzz pass (`FuzzPass`) as a plain executable, for scripts/test.sh's
// AddressSanitizer run: it depends on the libraries only, so the sanitized build does not
// compile the CLI or the test bundle. The same pass runs unsanitized inside `swift test`.
//
// Usage: APNsFuzzPass [INPUTS-PER-TARGET]   (default 10,000; every FuzzTarget case)

let inputs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 10_000
var passed = 0
var failed = 0
for target in FuzzTarget.allCases {
    do {
        let violations = try FuzzPass.violations(of: target, inputs: inputs)
        if violations.isEmpty {
            passed += 1
            print("fuzz pass: \(target.rawValue): \(inputs) inputs, no violation")
        } else {
            failed += 1
            for violation in violations { print("fuzz pass: VIOLATION \(violation)") }
        }
    } catch {
        failed += 1
        print("fuzz pass: \(target.rawValue): its seeds could not be built or were rejected: \(error)")
    }
}
print("fuzz pass: \(passed) passed, \(failed) failed")
exit(failed == 0 ? 0 : 1)
