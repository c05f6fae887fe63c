// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import ArgumentParser
import Foundation

/// `--days N | --not-before DATE --not-after DATE`, shared by everything `mock issue` makes
/// (certificates and provisioning profiles), so both check and read them the same way.
enum ValidityArguments {
    static func validate(days: Int?, notBefore: String?, notAfter: String?) throws {
        if (notBefore == nil) != (notAfter == nil) {
            throw ValidationError("--not-before and --not-after go together; give both or neither.")
        }
        if days != nil && notBefore != nil {
            throw ValidationError("Give either --days or --not-before/--not-after, not both.")
        }
        if let days, days <= 0 { throw ValidationError("--days must be positive.") }
    }

    /// The validity the options ask for, or `fallback` when they ask for none.
    static func validity(days: Int?, notBefore: String?, notAfter: String?, fallback: PortalRequest.Validity) throws -> PortalRequest.Validity {
        if let days { return .days(days) }
        if let notBefore, let notAfter {
            return .window(notBefore: try DateArgument.parse(notBefore, option: "--not-before"),
                           notAfter: try DateArgument.parse(notAfter, option: "--not-after"))
        }
        return fallback
    }
}
