// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import COpenSSL

/// Owns one `OCSP_CERTID`: which certificate (issuer name and key hash, serial) a request and
/// a response are about. Made in `init` and only read after; not `Sendable` all the same (one
/// check makes and drops it).
package final class OCSPCertificateID: OpenSSLObjectOwner {
    private let pointer: OpaquePointer

    /// SHA-1 ids, as RFC 6960 responders (Apple's among them) index their answers.
    package init(_ certificate: Certificate, issuer: Certificate) throws {
        let made = certificate.withUnsafePointer { subject in issuer.withUnsafePointer { OCSP_cert_to_id(EVP_sha1(), subject, $0) } }
        guard let id = made else {
            throw APNsCredentialError.openssl(.internalFailure, "OpenSSL could not make an OCSP certificate id.")
        }
        pointer = id
    }

    package init(copying other: OpaquePointer) throws {
        guard let id = OCSP_CERTID_dup(other) else {
            throw APNsCredentialError.openssl(.internalFailure, "OpenSSL could not copy an OCSP certificate id.")
        }
        pointer = id
    }

    deinit { OCSP_CERTID_free(pointer) }

    /// Lends the `OCSP_CERTID` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }

    /// The serial number the id names, upper-case hex as `openssl x509 -serial` prints it.
    package var serialHex: String {
        var serial: UnsafeMutablePointer<ASN1_INTEGER>?
        guard OCSP_id_get0_info(nil, nil, nil, &serial, pointer) == 1, let serial,
              let number = ASN1_INTEGER_to_BN(serial, nil) else { return "" }
        defer { BN_free(number) }
        guard let text = BN_bn2hex(number) else { return "" }
        defer { opensslFree(text) }
        return String(cString: text)
    }
}

/// Owns one `OCSP_REQUEST`. Not `Sendable`: a responder copies its nonce into an answer,
/// and one check makes and drops it.
package final class OCSPRequest: OpenSSLObjectOwner {
    private let pointer: OpaquePointer

    /// A request for `id` with a fresh nonce (RFC 8954), so a replayed answer is refused.
    package init(asking id: OCSPCertificateID) throws {
        guard let request = OCSP_REQUEST_new() else {
            throw APNsCredentialError.openssl(.internalFailure, "OpenSSL could not allocate an OCSP request.")
        }
        pointer = request
        // add0 takes the id it is given: hand it a copy, the caller keeps its own.
        guard let duplicate = id.withUnsafePointer({ OCSP_CERTID_dup($0) }) else {
            throw APNsCredentialError.openssl(.internalFailure, "OpenSSL could not copy an OCSP certificate id.")
        }
        guard OCSP_request_add0_id(request, duplicate) != nil else {
            OCSP_CERTID_free(duplicate)
            throw APNsCredentialError.openssl(.internalFailure, "OpenSSL could not build the OCSP request.")
        }
        guard OCSP_request_add1_nonce(request, nil, -1) == 1 else {
            throw APNsCredentialError.openssl(.internalFailure, "OpenSSL could not add a nonce to the OCSP request.")
        }
    }

    package init(der: [UInt8]) throws {
        guard let request = decodeDER(der, { d2i_OCSP_REQUEST(nil, $0, $1) }) else { throw APNsCredentialError.openssl(.unreadable, "The OCSP request is not DER an OCSP responder can read.") }
        pointer = request
    }

    deinit { OCSP_REQUEST_free(pointer) }

    /// Lends the `OCSP_REQUEST` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }

    package var der: [UInt8] { derEncode { i2d_OCSP_REQUEST(pointer, $0) } ?? [] }
}

/// Owns one `OCSP_RESPONSE` (the outer envelope with its status). Decoded or made whole, then
/// only read; not `Sendable` (one check makes and drops it).
package final class OCSPResponse: OpenSSLObjectOwner {
    private let pointer: OpaquePointer

    package init(der: [UInt8]) throws {
        guard let response = decodeDER(der, { d2i_OCSP_RESPONSE(nil, $0, $1) }) else { throw APNsCredentialError.openssl(.unreadable, "not an OCSP response") }
        pointer = response
    }

    package init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { OCSP_RESPONSE_free(pointer) }

    /// Lends the `OCSP_RESPONSE` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }

    package var der: [UInt8] { derEncode { i2d_OCSP_RESPONSE(pointer, $0) } ?? [] }

    /// `OCSP_RESPONSE_STATUS_SUCCESSFUL` (0), or the responder's refusal.
    package var status: Int32 { OCSP_response_status(pointer) }

    package func basic() -> OCSPBasicResponse? { OCSP_response_get1_basic(pointer).map(OCSPBasicResponse.init(taking:)) }
}

/// Owns one `OCSP_BASICRESP`: the signed statuses. Not `Sendable`: the mock's responder
/// fills one in and signs it through `withUnsafePointer` (`MockRevocation.respond`).
package final class OCSPBasicResponse: OpenSSLObjectOwner {
    private let pointer: OpaquePointer
    package init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { OCSP_BASICRESP_free(pointer) }

    /// Lends the `OCSP_BASICRESP` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }
}

/// Runs an OpenSSL `d2i_*` decoder over `der`; nil (and a clean error queue) when it refuses.
func decodeDER(_ der: [UInt8], _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?) -> OpaquePointer? {
    let decoded = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
        var cursor = buffer.baseAddress
        return decode(&cursor, buffer.count)
    }
    if decoded == nil { OpenSSLErrorQueue.clear() }
    return decoded
}
