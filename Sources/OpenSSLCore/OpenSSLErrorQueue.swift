// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL

/// OpenSSL reports failures through a thread-local queue. We clear it before an operation
/// and drain it after one, so an error never leaks into an unrelated later call.
package enum OpenSSLErrorQueue {
    package struct Entry: Sendable {
        package let library: Int32
        package let reason: Int32
        package let text: String
    }

    /// Removes every queued error and returns them, oldest first.
    package static func drainEntries() -> [Entry] {
        var entries: [Entry] = []
        while true {
            var data: UnsafePointer<CChar>? = nil
            var flags: Int32 = 0
            let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let data, (flags & ERR_TXT_STRING) != 0 {
                let extra = String(cString: data)
                if !extra.isEmpty { text += " (\(extra))" }
            }
            entries.append(Entry(library: Int32(truncatingIfNeeded: (code >> 23) & 0xFF),
                                 reason: Int32(truncatingIfNeeded: code & 0x7FFFFF),
                                 text: text))
        }
        return entries
    }

    /// Removes every queued error and returns them as readable lines.
    package static func drain() -> [String] { drainEntries().map(\.text) }

    /// Discards anything left over from an earlier call. Looks first: `ERR_clear_error` resets
    /// all sixteen of the queue's slots whether or not any holds an error (about 390
    /// instructions in OpenSSL 3), where `ERR_peek_error` on an empty queue is a fraction of
    /// that. The connection clears before every `SSL_read` and `SSL_write`, as `SSL_get_error`
    /// requires, and the queue is almost always empty then (docs/benchmarks.md, "Issue 33: the
    /// error queue looked at before it is cleared").
    package static func clear() {
        if ERR_peek_error() != 0 { ERR_clear_error() }
    }
}

/// What a failed decryption's error queue says happened. OpenSSL reports a wrong passphrase
/// and a cipher it cannot run through the same calls; only the queue tells them apart, and a
/// user who is told "wrong passphrase" for a DES key will retype a correct passphrase forever.
package enum DecryptionFailure: Equatable {
    /// OpenSSL has no implementation of the algorithm (a fetch failed, or the cipher or PRF is
    /// unknown); `algorithm` is the name OpenSSL gave, when it gave one.
    case unsupported(algorithm: String?)
    /// The decryption ran and the result did not check out (bad padding, bad MAC, garbage DER).
    case wrongPassphrase

    /// OpenSSL's error libraries that wrap every failure of theirs as "unsupported" (the
    /// store and decoder layers say so when no decoder accepted the bytes, which is also what a
    /// wrong passphrase produces), so their entries say nothing about the algorithm.
    private static let wrappingLibraries: Set<Int32> = [44 /* OSSL_STORE */, 60 /* OSSL_DECODER */]

    package static func classify(_ entries: [OpenSSLErrorQueue.Entry]) -> DecryptionFailure {
        let meaningful = entries.filter { !wrappingLibraries.contains($0.library) }
        if meaningful.contains(where: { $0.text.contains("bad decrypt") || $0.text.contains("cipherfinal error") }) {
            return .wrongPassphrase
        }
        guard let unsupported = meaningful.first(where: { $0.text.contains("unsupported") || $0.text.contains("unknown cipher") }) else {
            return .wrongPassphrase
        }
        return .unsupported(algorithm: algorithmName(in: unsupported.text))
    }

    /// `PBKDF1` from OpenSSL's "Algorithm (PBKDF1 : 0)" fetch detail.
    private static func algorithmName(in text: String) -> String? {
        guard let start = text.range(of: "Algorithm (") else { return nil }
        let rest = text[start.upperBound...]
        let name = rest.prefix { $0 != " " && $0 != ":" && $0 != ")" }
        return name.isEmpty ? nil : String(name)
    }
}
