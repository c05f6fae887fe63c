// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL

/// ECDSA P-256 with SHA-256 in JWS form (RFC 7518 §3.4): the signature is the raw 64-byte
/// r||s, not the DER `ECDSA-Sig-Value` OpenSSL produces, so both directions convert.
package enum ES256 {
    /// Signs `message`; returns r||s (64 bytes).
    package static func sign(_ message: [UInt8], with key: PrivateKey) throws -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else { throw CredentialError.openssl(.internalFailure, "OpenSSL could not allocate a signing context.") }
        defer { EVP_MD_CTX_free(context) }
        guard key.withUnsafePointer({ EVP_DigestSignInit(context, nil, EVP_sha256(), nil, $0) }) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not start an ES256 signature with this key.")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not size the ES256 signature.")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not compute the ES256 signature.")
        }
        return try rawSignature(fromDER: Array(der.prefix(length)))
    }

    /// Verifies r||s over `message` with `key`.
    package static func verify(_ signature: [UInt8], over message: [UInt8], with key: PublicKey) -> Bool {
        defer { OpenSSLErrorQueue.clear() }
        guard signature.count == 64, let der = derSignature(fromRaw: signature),
              let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard key.withUnsafePointer({ EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, $0) }) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }

    static func rawSignature(fromDER der: [UInt8]) throws -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CredentialError.openssl(.internalFailure, "OpenSSL produced an unreadable ECDSA signature.") }
        defer { ECDSA_SIG_free(parsed) }
        var raw = [UInt8](repeating: 0, count: 64)
        guard let r = ECDSA_SIG_get0_r(parsed), let s = ECDSA_SIG_get0_s(parsed),
              BN_bn2binpad(r, &raw, 32) == 32,
              raw.withUnsafeMutableBufferPointer({ BN_bn2binpad(s, $0.baseAddress! + 32, 32) }) == 32 else {
            throw CredentialError.openssl(.internalFailure, "The ECDSA signature is not a P-256 signature.")
        }
        return raw
    }

    static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, 32, nil)
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r); BN_free(s)
            return nil
        }
        return derEncode { i2d_ECDSA_SIG(signature, $0) }
    }
}
