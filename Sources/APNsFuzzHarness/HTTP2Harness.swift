// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport

/// The HTTP/2 glue: frames into a server session and a client session (`HTTP2SessionFuzzing`).
enum HTTP2Harness {
    /// Byte 0: bit 0 picks the role (1: server), the rest the slice size nghttp2 is fed in;
    /// the remaining bytes are what the peer sends. Whatever the bytes, a server hands over
    /// no request body past the bound (and flags exactly those over it), and the client's one
    /// request completes exactly once, with no answer body past the bound.
    static func http2(_ input: [UInt8]) throws {
        guard let first = input.first else { return }
        let server = first & 1 == 1
        let chunk = 1 + Int(first >> 1) * 97
        let bound = HTTP2SessionFuzzing.settings.maxBodySize
        let outcome: HTTP2SessionFuzzing.Outcome
        do {
            outcome = try HTTP2SessionFuzzing.feed(Array(input.dropFirst()), asServer: server, chunk: chunk)
        } catch {
            throw HarnessViolation("the fuzzing session could not start: \(error)")
        }
        if server {
            try Check.require(outcome.largestRequestBody <= bound + 1, "a request body of \(outcome.largestRequestBody) bytes passed the \(bound)-byte bound")
            try Check.require(outcome.misflaggedBodies == 0, "\(outcome.misflaggedBodies) request(s) with bodyOverLimit wrong")
        } else {
            try Check.require(outcome.completions == 1, "the client's request completed \(outcome.completions) times")
            try Check.require(outcome.largestResponseBody <= bound, "an answer body of \(outcome.largestResponseBody) bytes passed the \(bound)-byte bound")
        }
    }

    // MARK: seeds

    /// A request with a body on stream 1 and one past the bound on stream 3 (server role);
    /// an answer with a body (client role). Frames and HPACK literals written out by hand.
    static var seeds: [[UInt8]] {
        let settings = frame(4, 0, 0, [])
        let request = [0x83, 0x87] + literal(":path", "/3/device/00") + literal(":authority", "fuzz.invalid") + literal("apns-topic", "com.example.app")
        let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let big = [UInt8](repeating: 0x20, count: 6000)
        let toServer = settings + frame(1, 0x4, 1, request) + frame(0, 0x1, 1, body)
            + frame(1, 0x4, 3, request) + frame(0, 0, 3, big) + frame(0, 0x1, 3, [])
        let answer = [0x88] + literal("apns-id", "00000000-0000-0000-0000-000000000000")
        let toClient = settings + frame(4, 0x1, 0, []) + frame(1, 0x4, 1, answer) + frame(0, 0x1, 1, Array(#"{"reason":"BadDeviceToken"}"#.utf8))
        let bigAnswer = settings + frame(1, 0x4, 1, [0x88]) + frame(0, 0, 1, big) + frame(0, 0x1, 1, [])
        return [[1] + toServer, [0x41] + toServer, [0] + toClient, [0x80] + toClient, [0] + bigAnswer]
    }

    private static func frame(_ type: UInt8, _ flags: UInt8, _ stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
                UInt8(stream >> 24 & 0xFF), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    /// A literal header field without indexing, new name (RFC 7541 section 6.2.2); short strings only.
    private static func literal(_ name: String, _ value: String) -> [UInt8] {
        [0x00, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(value.utf8.count)] + Array(value.utf8)
    }
}
