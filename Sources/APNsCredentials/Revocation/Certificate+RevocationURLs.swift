// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import COpenSSL

extension Certificate {
    /// The OCSP responders named in Authority Information Access (`OCSP;URI:...`).
    package var ocspURLs: [String] {
        guard let stack = withUnsafePointer({ X509_get1_ocsp($0) }) else { return [] }
        defer { X509_email_free(stack) }
        let raw = stack
        return (0..<OPENSSL_sk_num(raw)).compactMap { index in
            OPENSSL_sk_value(raw, index).map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
        }
    }

    /// The URIs of the CRL distribution points (full names only; relative names are not used
    /// by public CAs).
    package var crlURLs: [String] {
        guard let points = withUnsafePointer({ X509_get_ext_d2i($0, NID_crl_distribution_points, nil, nil) }) else { return [] }
        let stack = OpaquePointer(points)
        defer { CRL_DIST_POINTS_free(stack) }
        var urls: [String] = []
        for index in 0..<OPENSSL_sk_num(stack) {
            guard let raw = OPENSSL_sk_value(stack, index) else { continue }
            let point = raw.assumingMemoryBound(to: DIST_POINT.self).pointee
            guard let name = point.distpoint?.pointee, name.type == 0, let names = name.name.fullname else { continue }
            let generals = names
            for nameIndex in 0..<OPENSSL_sk_num(generals) {
                guard let general = OPENSSL_sk_value(generals, nameIndex)?.assumingMemoryBound(to: GENERAL_NAME.self).pointee,
                      general.type == GEN_URI, let uri = general.d.uniformResourceIdentifier,
                      let data = ASN1_STRING_get0_data(uri) else { continue }
                urls.append(String(decoding: UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(uri))), as: UTF8.self))
            }
        }
        return urls
    }
}
