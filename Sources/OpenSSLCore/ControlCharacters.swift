// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// C0 control characters and DEL in text that line-based readers parse (Prometheus, GitHub's
/// workflow commands) or a terminal shows: a file name may hold CR, TAB or ESC, and a peer's
/// text (a proxy's reason phrase, an inbox entry, an APNs reason) ESC or BEL, which those
/// formats take as valid but which end a line, split a field or drive the terminal where the
/// text is read. Every human-readable line that repeats such text escapes it here.
package enum ControlCharacters {
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }

    /// `text` with each control character but those in `keeping` written as the text `\xHH`.
    package static func hexEscaped(_ text: String, keeping: Set<Unicode.Scalar> = []) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar), !keeping.contains(scalar) {
                out += String(format: "\\x%02x", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
