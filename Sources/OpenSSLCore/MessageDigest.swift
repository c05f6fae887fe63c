// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL

/// One-shot message digests over OpenSSL's EVP API, for identifiers derived from data
/// (the outbox's name-based UUIDs, RFC 9562 §5.5), not for signatures.
package enum MessageDigest {
    /// SHA-1 of `bytes` (20 bytes). RFC 9562's version-5 UUIDs are defined over SHA-1.
    package static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, EVP_sha1(), nil)
        }
        // EVP_Digest with SHA-1 fails only when memory runs out; a zero digest would make
        // every id the same, so the process stops instead of sending under a wrong id.
        precondition(ok == 1, "EVP_Digest(SHA-1) failed")
        return Array(output.prefix(Int(length)))
    }
}
