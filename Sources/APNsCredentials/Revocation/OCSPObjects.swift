// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import COpenSSL

/// Owns one `OCSP_CERTID`: which certificate (issuer name and key hash, serial) a request and
/// a response are about.
package final class OCSPCertificateID {
    package let pointer: OpaquePointer

    /// SHA-1 ids, as RFC 6960 responders (Apple's among them) index their answers.
    package init(_ certificate: Certificate, issuer: Certificate) throws {
        guard let id = OCSP_cert_to_id(EVP_sha1(), certificate.pointer, issuer.pointer) else {
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

/// Owns one `OCSP_REQUEST`.
package final class OCSPRequest {
    package let pointer: OpaquePointer

    /// A request for `id` with a fresh nonce (RFC 8954), so a replayed answer is refused.
    package init(asking id: OCSPCertificateID) throws {
        guard let request = OCSP_REQUEST_new() else {
            throw APNsCredentialError.openssl(.internalFailure, "OpenSSL could not allocate an OCSP request.")
        }
        pointer = request
        // add0 takes the id it is given: hand it a copy, the caller keeps its own.
        guard let duplicate = OCSP_CERTID_dup(id.pointer) else {
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

    package var der: [UInt8] { derEncode { i2d_OCSP_REQUEST(pointer, $0) } ?? [] }
}

/// Owns one `OCSP_RESPONSE` (the outer envelope with its status).
package final class OCSPResponse {
    package let pointer: OpaquePointer

    package init(der: [UInt8]) throws {
        guard let response = decodeDER(der, { d2i_OCSP_RESPONSE(nil, $0, $1) }) else { throw APNsCredentialError.openssl(.unreadable, "not an OCSP response") }
        pointer = response
    }

    package init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { OCSP_RESPONSE_free(pointer) }

    package var der: [UInt8] { derEncode { i2d_OCSP_RESPONSE(pointer, $0) } ?? [] }

    /// `OCSP_RESPONSE_STATUS_SUCCESSFUL` (0), or the responder's refusal.
    package var status: Int32 { OCSP_response_status(pointer) }

    package func basic() -> OCSPBasicResponse? { OCSP_response_get1_basic(pointer).map(OCSPBasicResponse.init(taking:)) }
}

/// Owns one `OCSP_BASICRESP`: the signed statuses.
package final class OCSPBasicResponse {
    package let pointer: OpaquePointer
    package init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { OCSP_BASICRESP_free(pointer) }
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
