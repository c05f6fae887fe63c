// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
package import COpenSSL
import Foundation

/// The HTTP exchanges of a revocation check, through OpenSSL's own HTTP client
/// (`OSSL_HTTP_transfer`, what `openssl ocsp -url` uses): bounded in time and size, plain
/// HTTP only (OCSP and CRL URLs are http: their answers are signed, so TLS adds nothing, and
/// a TLS failure must not pass for an unreachable responder).
enum RevocationHTTP {
    struct Failure: Error { let sentence: String }

    /// POSTs `body` (DER) and returns the response body; throws a sentence when the server
    /// cannot be reached, times out, answers an error, or sends more than `maximumBytes`.
    static func post(_ url: String, body: [UInt8], contentType: String, expecting: String,
                     maximumBytes: Int, timeout: Int) throws -> [UInt8] {
        try exchange(url, body: body, contentType: contentType, expecting: expecting, maximumBytes: maximumBytes, timeout: timeout)
    }

    static func get(_ url: String, maximumBytes: Int, timeout: Int) throws -> [UInt8] {
        try exchange(url, body: nil, contentType: nil, expecting: nil, maximumBytes: maximumBytes, timeout: timeout)
    }

    private static func exchange(_ url: String, body: [UInt8]?, contentType: String?, expecting: String?,
                                 maximumBytes: Int, timeout: Int) throws -> [UInt8] {
        let parts = try URLParts(url)
        OpenSSLErrorQueue.clear()
        let request = try body.map { try MemoryBIO($0) }
        let response = OSSL_HTTP_transfer(nil, parts.host, parts.port, parts.path, 0, nil, nil, nil, nil, nil, nil, 0, nil,
                                          contentType, request?.pointer, expecting, 1, maximumBytes, Int32(timeout), 0)
        guard let response else {
            // OpenSSL's line ends with its reason ("error:10000093:BIO routines::connect timeout").
            let reason = OpenSSLErrorQueue.drain().last.map { ": " + ($0.components(separatedBy: "::").last ?? $0) } ?? ""
            throw Failure(sentence: "\(url) did not answer within \(timeout) seconds or refused the request\(reason)")
        }
        return MemoryBIO(taking: response).bytes
    }

    /// `OSSL_HTTP_parse_url`'s pieces, copied out of the strings it allocates.
    struct URLParts {
        let host: String
        let port: String
        let path: String

        init(_ url: String) throws {
            var tls: Int32 = 0
            var host: UnsafeMutablePointer<CChar>?, port: UnsafeMutablePointer<CChar>?, path: UnsafeMutablePointer<CChar>?
            var query: UnsafeMutablePointer<CChar>?
            var number: Int32 = 0
            guard OSSL_HTTP_parse_url(url, &tls, nil, &host, &port, &number, &path, &query, nil) == 1 else {
                OpenSSLErrorQueue.clear()
                throw Failure(sentence: "\(url) is not a URL OpenSSL can use")
            }
            defer { opensslFree(host); opensslFree(port); opensslFree(path); opensslFree(query) }
            guard tls == 0 else { throw Failure(sentence: "\(url) is https; revocation answers are signed and fetched over plain http") }
            self.host = host.map { String(cString: $0) } ?? ""
            self.port = port.map { String(cString: $0) } ?? "80"
            let bare = path.map { String(cString: $0) } ?? "/"
            self.path = query.map { bare + "?" + String(cString: $0) } ?? bare
        }
    }
}
