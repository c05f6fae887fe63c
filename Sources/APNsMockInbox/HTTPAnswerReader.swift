// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Reads one HTTP/1.x answer as its bytes arrive, for `PlainHTTP` and the webhook's https
/// exchange. Each byte is looked at a bounded number of times: the head's end is searched from
/// where the last search stopped, the head is parsed once, and the body is appended (or only
/// counted), so a peer that trickles its answer a byte at a time after a 60 KB head costs a
/// few instructions per byte, not a scan of everything received so far per read (that cost a
/// webhook 5.3 s of CPU per 10 s attempt, issue 31).
package struct HTTPAnswerReader: Sendable {
    /// A head longer than this is not an answer of the peers these clients talk to.
    package static let maxHead = 65_536

    private let maxAnswer: Int
    private let keepBody: Bool
    private var head: [UInt8] = []
    /// Where the next search for the head's end starts in `head`.
    private var searched = 0
    package private(set) var status: Int?
    private var contentLength: Int?
    private var chunked = false
    package private(set) var body: [UInt8] = []
    /// Body bytes received (kept or not).
    package private(set) var bodyCount = 0
    /// The last bytes of a chunked body, to see its terminating chunk without keeping it.
    private var tail: [UInt8] = []
    /// Every byte received so far.
    package private(set) var received = 0
    /// The answer's first bytes, for a sentence about what came back when it is not HTTP.
    package private(set) var opening: [UInt8] = []

    package enum Failure: Error, Sendable, Equatable { case tooLarge, notHTTP }

    /// `keepBody` false: the body is counted, not kept (the webhook throws it away).
    package init(maxAnswer: Int, keepBody: Bool = true) {
        self.maxAnswer = maxAnswer
        self.keepBody = keepBody
    }

    /// Whether the answer is complete: the head and a Content-Length body, or a chunked body's
    /// last chunk. (Otherwise it ends when the peer closes.)
    package var isComplete: Bool {
        guard status != nil else { return false }
        if let contentLength { return bodyCount >= contentLength }
        if chunked { return tail.count >= 5 && tail.suffix(5).elementsEqual("0\r\n\r\n".utf8) }
        return false
    }

    /// Takes the next bytes received.
    package mutating func append(_ bytes: some Collection<UInt8>) throws(Failure) {
        received += bytes.count
        if opening.count < 64 { opening += bytes.prefix(64 - opening.count) }
        guard received <= maxAnswer else { throw .tooLarge }
        if status != nil {
            appendBody(bytes)
            return
        }
        head += bytes
        var index = max(searched, 0)
        while index + 3 < head.count {
            if head[index] == 13, head[index + 1] == 10, head[index + 2] == 13, head[index + 3] == 10 {
                let rest = head[(index + 4)...]
                try parseHead(head[..<index])
                head = []
                appendBody(rest)
                return
            }
            index += 1
        }
        searched = max(head.count - 3, 0)
        guard head.count <= Self.maxHead else { throw .notHTTP }
    }

    private mutating func appendBody(_ bytes: some Collection<UInt8>) {
        bodyCount += bytes.count
        if keepBody {
            if body.isEmpty, let contentLength, contentLength <= maxAnswer { body.reserveCapacity(contentLength) }
            body += bytes
        }
        if chunked {
            tail += bytes.suffix(5)
            if tail.count > 5 { tail.removeFirst(tail.count - 5) }
        }
    }

    /// Status line and the fields that say where the body ends.
    private mutating func parseHead(_ bytes: ArraySlice<UInt8>) throws(Failure) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), statusParts[1].utf8.count == 3,
              let status = Int(statusParts[1]), (100...999).contains(status) else { throw .notHTTP }
        for line in lines.dropFirst() {
            let field = line.lowercased()
            if field.hasPrefix("transfer-encoding:"), field.contains("chunked") { chunked = true }
            if field.hasPrefix("content-length:") {
                let digits = field.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)
                // Range-checked: at most 18 digits fit an Int; more is no answer of ours anyway.
                guard digits.utf8.count <= 18, let length = Int(digits), length >= 0 else { throw .notHTTP }
                contentLength = length
            }
        }
        if chunked { contentLength = nil }
        self.status = status
    }

    /// The body as the peer meant it: a chunked one decoded, a Content-Length one cut there.
    package func decodedBody() -> [UInt8] {
        if chunked { return Self.dechunk(body) }
        if let contentLength, contentLength < body.count { return Array(body[0..<contentLength]) }
        return body
    }

    private static func dechunk(_ body: [UInt8]) -> [UInt8] {
        var decoded: [UInt8] = []
        var index = 0
        while index < body.count {
            guard let lineEnd = (index..<body.count - 1).first(where: { body[$0] == 13 && body[$0 + 1] == 10 }),
                  lineEnd - index <= 16,
                  let size = Int(String(decoding: body[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16),
                  size >= 0 else { break }
            if size == 0 { break }
            let start = lineEnd + 2
            guard size <= body.count - start else { break }
            decoded += body[start..<start + size]
            index = start + size + 2
        }
        return decoded
    }
}
