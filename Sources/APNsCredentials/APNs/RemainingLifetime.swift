// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

extension CheckPolicy {
    /// Why `info` fails `--min-remaining P%`, or nil: renewal is due once less than P percent
    /// of the certificate's whole lifetime is left, the way `step certificate needs-renewal
    /// --expires-in 10%` decides. A day count suits one kind of certificate; a percentage suits
    /// a folder of them with different lifetimes (Apple's 13 months, a CA's 10 years).
    func lifetimeShortfall(_ info: APNsCertificateInfo, now: Date) -> String? {
        guard let percent = minimumRemainingPercent else { return nil }
        let left = RemainingLifetime.percentLeft(notBefore: info.notBefore, notAfter: info.notAfter, now: now)
        guard left < percent else { return nil }
        return "expires in \(info.daysLeft) days on \(APNsCertificateInfo.day(info.notAfter)), "
            + "\(RemainingLifetime.format(left))% of its lifetime left (\(name(.minimumRemaining)) \(RemainingLifetime.format(percent))%)"
    }
}

/// `--min-remaining` arithmetic and spelling.
package enum RemainingLifetime {
    /// Percentage of the validity period still ahead at `now`, 0 to 100.
    package static func percentLeft(notBefore: Date, notAfter: Date, now: Date) -> Double {
        let lifetime = notAfter.timeIntervalSince(notBefore)
        guard lifetime > 0 else { return 0 }
        return min(100, max(0, notAfter.timeIntervalSince(now) / lifetime * 100))
    }

    /// Parses `10%` (the sign is required, so the value cannot be mistaken for days): a
    /// number from 0 to 100. Nil for anything else.
    package static func parsePercent(_ text: String) -> Double? {
        guard text.hasSuffix("%"), let value = Double(text.dropLast()), value.isFinite, (0...100).contains(value) else { return nil }
        return value
    }

    /// `10`, `12.5`: no trailing zeros.
    static func format(_ percent: Double) -> String {
        let rounded = (percent * 10).rounded(.down) / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
