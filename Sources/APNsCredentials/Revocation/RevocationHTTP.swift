// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import COpenSSL
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
        let response = withOptionalPointer(request) {
            OSSL_HTTP_transfer(nil, parts.host, parts.port, parts.path, 0, nil, nil, nil, nil, nil, nil, 0, nil,
                               contentType, $0, expecting, 1, maximumBytes, Int32(timeout), 0)
        }
        guard let response else { throw Failure(sentence: "\(url) " + failure(OpenSSLErrorQueue.drain(), timeout: timeout)) }
        return MemoryBIO(taking: response).bytes
    }

    /// What OpenSSL's HTTP client says went wrong, as the end of a sentence: an HTTP error
    /// status is said as such (an immediate 500 once read "did not answer within 3 seconds").
    /// Its lines end with a reason and, for an error status, the status in parentheses
    /// ("error:...:HTTP routines::received error (code=500,reason=Internal Server Error)").
    static func failure(_ lines: [String], timeout: Int) -> String {
        let reasons = lines.map { $0.components(separatedBy: "::").last ?? $0 }
        if let received = reasons.first(where: { $0.hasPrefix("received error") }),
           let code = received.range(of: "code=").map({ received[$0.upperBound...].prefix { $0.isNumber } }), !code.isEmpty {
            let reason = received.range(of: "reason=").map { " " + received[$0.upperBound...].prefix { $0 != ")" && $0 != "," } } ?? ""
            return "answered HTTP \(code)\(reason)"
        }
        if reasons.contains(where: { $0.contains("timeout") }) { return "did not answer within \(timeout) seconds" }
        if let refused = reasons.first(where: { $0.contains("Connection refused") || $0.contains("connect error") }) {
            return "could not be reached (\(refused))"
        }
        if let unexpected = reasons.first(where: { $0.contains("unexpected content type") || $0.contains("content type") }) {
            return "answered with the wrong content type (\(unexpected))"
        }
        return "could not be asked" + (reasons.last.map { ": " + $0 } ?? "")
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
