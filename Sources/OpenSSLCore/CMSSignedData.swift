// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import CShims
internal import COpenSSL
import Foundation

/// A CMS SignedData with its content embedded (PKCS#7 `signedData`, RFC 5652): the envelope
/// Apple wraps every provisioning profile in (apns-protocol.md §9). Owns one `CMS_ContentInfo`
/// and frees it. `@unchecked Sendable`: the `CMS_ContentInfo` is only read after `init`.
///
/// Reading is split from verifying on purpose: `inspect` shows a profile whose signature is
/// broken (that is what a user needs to see), and says so, instead of refusing to read it.
package final class CMSSignedData: @unchecked Sendable {
    private let pointer: OpaquePointer

    private init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { CMS_ContentInfo_free(pointer) }

    /// Whether `bytes` start like a DER ContentInfo of type signedData:
    /// `SEQUENCE { OBJECT IDENTIFIER 1.2.840.113549.1.7.2, ...`. Cheap, for file sniffing.
    package static func looksLikeSignedData(_ bytes: [UInt8]) -> Bool {
        guard bytes.count > 16, bytes[0] == 0x30 else { return false }
        var offset = 2
        if bytes[1] & 0x80 != 0 { offset += Int(bytes[1] & 0x7F) }
        let oid: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
        guard offset + oid.count <= bytes.count else { return false }
        return Array(bytes[offset..<(offset + oid.count)]) == oid
    }

    /// Decodes exactly one DER ContentInfo holding SignedData with embedded content.
    package convenience init(der: [UInt8], label: String) throws {
        OpenSSLErrorQueue.clear()
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let result = d2i_CMS_ContentInfo(nil, &cursor, buffer.count) else { return nil }
            if let cursor, cursor != buffer.baseAddress! + buffer.count {
                CMS_ContentInfo_free(result)
                return nil
            }
            return result
        }
        guard let decoded else {
            throw CredentialError.openssl(.unreadable, "\(label) is not a readable CMS signed message (corrupt, truncated or trailing bytes); download the profile again.")
        }
        self.init(taking: decoded)
        guard let type = CMS_get0_type(pointer), OBJ_obj2nid(type) == NID_pkcs7_signed else {
            throw CredentialError(.unreadable, "\(label) is a CMS message but not a signed one; a provisioning profile is CMS SignedData.")
        }
        guard content != nil else {
            throw CredentialError(.unreadable, "\(label) is a CMS signed message without embedded content (a .p7b certificate bundle or a detached signature), not a provisioning profile, which embeds its property list.")
        }
        OpenSSLErrorQueue.clear()
    }

    /// The embedded content (for a profile: the XML property list).
    package var content: [UInt8]? {
        var data: UnsafePointer<UInt8>? = nil
        let length = shim_cms_content(pointer, &data)
        guard length >= 0 else { return nil }
        guard length > 0, let data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    /// Every certificate the envelope carries (signer and chain), in envelope order.
    package var certificates: [Certificate] {
        guard let stack = CMS_get1_certs(pointer) else { OpenSSLErrorQueue.clear(); return [] }
        defer { shim_sk_X509_pop_free(stack) }
        return (0..<shim_sk_X509_num(stack)).compactMap { index in
            shim_sk_X509_value(stack, index).map { Certificate(retaining: $0) }
        }
    }

    package var signerCount: Int { Int(shim_cms_signer_count(pointer)) }

    /// The embedded certificate the first signer names, if the envelope carries it.
    package var signerCertificate: Certificate? {
        defer { OpenSSLErrorQueue.clear() }
        return shim_cms_signer_certificate(pointer).map { Certificate(taking: $0) }
    }

    /// Nil when every signature verifies over the content with the embedded signer
    /// certificates (no chain check: `TrustStore` does that, with `check`'s rules);
    /// otherwise OpenSSL's reason.
    package func signatureFailure() -> String? {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        guard signerCount > 0 else { return "the envelope has no signer" }
        let flags = UInt32(CMS_NO_SIGNER_CERT_VERIFY | CMS_BINARY)
        if CMS_verify(pointer, nil, nil, nil, nil, flags) == 1 { return nil }
        return OpenSSLErrorQueue.drain().last.map { Self.reason($0) } ?? "the signature does not verify"
    }

    /// `error:10000000:CMS routines::content verify error` -> `content verify error`.
    private static func reason(_ line: String) -> String {
        line.split(separator: ":", omittingEmptySubsequences: false).last.map { String($0) } ?? line
    }

    /// The DER encoding.
    package var der: [UInt8] { derEncode { i2d_CMS_ContentInfo(pointer, $0) } ?? [] }

    /// Signs `content` as SignedData with SHA-256, embedding it, the signer and `chain`
    /// (the mock CA's profile signing; Apple signs profiles the same way).
    package static func sign(_ content: [UInt8], signer: Certificate, key: PrivateKey, chain: [Certificate]) throws -> CMSSignedData {
        OpenSSLErrorQueue.clear()
        let data = try MemoryBIO(content)
        guard let extra = CertificateStack(chain) else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not allocate a certificate stack.")
        }
        let flags = UInt32(CMS_BINARY | CMS_NOSMIMECAP)
        let made = signer.withUnsafePointer { x509 in
            key.withUnsafePointer { pkey in
                extra.withUnsafePointer { stack in data.withUnsafePointer { bio in CMS_sign(x509, pkey, stack, bio, flags) } }
            }
        }
        guard let signed = made else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not sign the profile (CMS_sign).")
        }
        return CMSSignedData(taking: signed)
    }
}
