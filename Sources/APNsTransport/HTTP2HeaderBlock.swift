// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0

/// Header fields that many requests share, encoded once: when a caller sends a run of requests
/// whose fields are the same but for the path and an id (a sender's batch), their names are
/// lowercased and their bytes laid out one time, and each request's header list copies the
/// finished bytes in one piece (`NameValueBuffer.append(_:neverIndexed:)`) instead of copying
/// and lowercasing the Strings of every field again (the header list cost about 3,500
/// instructions per request; docs/benchmarks.md, issue 33). Immutable and shared by reference.
package final class HTTP2HeaderBlock: Sendable {
    /// The fields as given (names lowercased), for readers: `HTTP2Request.header(_:)`, tests.
    package let fields: [(name: String, value: String)]
    /// Each field's name and value, lowercased name first, one after another.
    let bytes: [UInt8]
    /// Where each field's name and value lie in `bytes`.
    let spans: [(name: Int, nameCount: Int, value: Int, valueCount: Int)]
    /// One of the fields is `content-length` (the client then adds none).
    let hasContentLength: Bool

    package init(_ fields: [(name: String, value: String)]) {
        var bytes: [UInt8] = []
        var spans: [(name: Int, nameCount: Int, value: Int, valueCount: Int)] = []
        var lowered: [(name: String, value: String)] = []
        for field in fields {
            let name = field.name.utf8.map(NameValueBuffer.lowercased)
            let value = Array(field.value.utf8)
            spans.append((bytes.count, name.count, bytes.count + name.count, value.count))
            bytes += name
            bytes += value
            lowered.append((String(decoding: name, as: UTF8.self), field.value))
        }
        self.fields = lowered
        self.bytes = bytes
        self.spans = spans
        hasContentLength = lowered.contains { $0.name == "content-length" }
    }
}
