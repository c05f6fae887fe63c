// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import COpenSSL

extension Certificate {
    /// SHA-256 of the certificate's SubjectPublicKeyInfo (DER), lower-case hex: what
    /// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform DER | sha256sum` prints.
    /// It names a CA by its key, so a re-issued or cross-signed copy of a root (same key, other
    /// validity or issuer) is recognised as the same CA, and a look-alike with the right name
    /// but another key is not.
    package var publicKeySHA256: String {
        var bytes: UnsafeMutablePointer<UInt8>?
        // X509_get_X509_PUBKEY points into the certificate: encoded while it is lent.
        let length = withUnsafePointer { x509 -> Int32 in
            guard let publicKey = X509_get_X509_PUBKEY(x509) else { return 0 }
            return i2d_X509_PUBKEY(publicKey, &bytes)
        }
        guard length > 0, let bytes else { return "" }
        defer { opensslFree(bytes) }
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = SHA256(bytes, Int(length), &digest)
        return hex(digest)
    }
}
