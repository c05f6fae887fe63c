// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsSender
import APNsTransport
import Foundation

/// `push --print-curl`: the request as a curl command line, as the Push Notifications
/// Console's "copy as cURL" gives it, so it can be run, shared or put in a script. Every part
/// is single-quoted for POSIX shells; passphrases are never printed.
enum CurlCommand {
    /// Prints the curl commands of one run, one per request, as they come (a batch streams:
    /// nothing is held but the request being printed). Token auth signs one JWT when the
    /// printer is made and every command carries it, as a sender reuses its token (APNs takes
    /// it for up to an hour and throttles a token that changes too often, apns-protocol.md §1, §8).
    struct Printer {
        let authorization: String?
        let endpoint: Endpoint
        let identityFiles: [String]
        let caFile: String?

        init(authentication: APNsClient.Authentication, endpoint: Endpoint, identityFiles: [String], caFile: String?) throws {
            if case .token(let signer) = authentication { authorization = "bearer \(try signer.token())" } else { authorization = nil }
            self.endpoint = endpoint
            self.identityFiles = identityFiles
            self.caFile = caFile
        }

        func print(_ request: HTTP2Request) {
            var request = request
            if let authorization { request.headers.append((name: "authorization", value: authorization)) }
            Output.line(CurlCommand.render(request, endpoint: endpoint, identityFiles: identityFiles, caFile: caFile))
        }
    }

    static func render(_ request: HTTP2Request, endpoint: Endpoint, identityFiles: [String], caFile: String?) -> String {
        var parts = ["curl", "--http2"]
        if let caFile { parts += ["--cacert", quote(caFile)] }
        if let proxy = endpoint.proxy {
            // The proxy's password is a credential: curl asks for it on the terminal when
            // --proxy-user names only the user.
            parts += ["--proxy", quote("http://\(Endpoint(host: proxy.host, port: proxy.port).description)")]
            if let username = proxy.username { parts += ["--proxy-user", quote(username)] }
        }
        if let first = identityFiles.first {
            let lower = first.lowercased()
            if lower.hasSuffix(".p12") || lower.hasSuffix(".pfx") {
                parts += ["--cert-type", "P12", "--cert", quote(first)]
            } else {
                if lower.hasSuffix(".cer") || lower.hasSuffix(".der") { parts += ["--cert-type", "DER"] }
                parts += ["--cert", quote(first)]
                if identityFiles.count > 1 { parts += ["--key", quote(identityFiles[1])] }
            }
        }
        if request.method != "POST" || request.body.isEmpty { parts += ["--request", request.method] }
        for header in request.headers { parts += ["--header", quote("\(header.name): \(header.value)")] }
        if !request.body.isEmpty { parts += ["--data-binary", quote(String(decoding: request.body, as: UTF8.self))] }
        parts.append(quote("https://\(endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host):\(endpoint.port)\(request.path)"))
        return parts.joined(separator: " ")
    }

    /// POSIX single quotes: everything literal; a quote inside becomes '\''.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
