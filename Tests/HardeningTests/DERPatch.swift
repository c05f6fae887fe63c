// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore

/// Edits INTEGERs inside DER, re-encoding every length on the way up: the way to make a file
/// that asks for 100,000,000 iterations without running them (the `openssl` CLI would, for
/// minutes, to write it). The edited file's MAC or ciphertext no longer matches, which does
/// not matter to a reader that refuses it before deriving anything.
enum DERPatch {
    /// `der` with the INTEGERs equal to `old` set to `new`: all of them, or the `only`-th ones
    /// (counted from 1 in document order). OCTET STRINGs that hold DER are edited too, since
    /// PKCS#12 nests its contents that way. Returns the result and how many were replaced.
    static func replacingIntegers(_ old: UInt64, with new: UInt64, in der: [UInt8], only: Set<Int>? = nil) -> (bytes: [UInt8], replaced: Int) {
        var state = State(old: old, new: new, only: only)
        let bytes = rewrite(der[...], &state) ?? der
        return (bytes, state.replaced)
    }

    private struct State {
        let old: UInt64
        let new: UInt64
        let only: Set<Int>?
        var seen = 0
        var replaced = 0
    }

    /// The elements of `bytes` rewritten; nil when `bytes` is not a list of DER elements.
    private static func rewrite(_ bytes: ArraySlice<UInt8>, _ state: inout State) -> [UInt8]? {
        var reader = DERReader(bytes)
        var out: [UInt8] = []
        while !reader.isAtEnd {
            guard let element = try? reader.next() else { return nil }
            if element.tag == 0x02, value(element.value) == state.old {
                state.seen += 1
                if state.only?.contains(state.seen) ?? true {
                    out += DERWriter.element(0x02, integer(state.new))
                    state.replaced += 1
                    continue
                }
            } else if element.tag & 0x20 != 0 || element.tag == 0x04 {
                let saved = state
                if let inner = rewrite(element.value, &state) {
                    if state.replaced > saved.replaced {
                        out += DERWriter.element(element.tag, inner)
                        continue
                    }
                } else {
                    state = saved  // not DER after all: a salt, a digest, ciphertext
                }
            }
            out += bytes[element.offset..<element.value.endIndex]
        }
        return out
    }

    private static func value(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 9, bytes.first! & 0x80 == 0 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A non-negative DER INTEGER's content bytes: big-endian, minimal, a leading zero when
    /// the top bit is set.
    private static func integer(_ number: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = number
        repeat {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        } while rest > 0
        return bytes.first! & 0x80 != 0 ? [0] + bytes : bytes
    }
}
