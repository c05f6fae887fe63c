// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
/// Apple's topics extension (1.2.840.113635.100.6.3.6): which `apns-topic` values a
/// certificate may push to, and what kind of push each is for.
///
/// Its value is a flat alternation, not a list of pairs:
/// `SEQUENCE { UTF8String topic, SEQUENCE { UTF8String kind... }, UTF8String topic, ... }`,
/// e.g. `"com.x.app" {"app"}, "com.x.app.voip" {"voip"}`.
package struct APNsTopic: Sendable, Equatable, Codable {
    package let topic: String
    /// `app`, `voip`, `complication`, ... as Apple writes them.
    package let kinds: [String]

    package init(topic: String, kinds: [String]) {
        self.topic = topic
        self.kinds = kinds
    }
}

package enum APNsTopics {
    package static let oid = "1.2.840.113635.100.6.3.6"

    /// Parses the extension value; a malformed value throws a `DERReader.DERError` whose
    /// description says what is wrong and where.
    package static func parse(_ value: [UInt8]) throws -> [APNsTopic] {
        var outer = DERReader(value)
        let sequence = try outer.next(DERReader.sequence, "the topics SEQUENCE")
        guard outer.isAtEnd else {
            throw DERReader.DERError(description: "unexpected bytes after the topics SEQUENCE")
        }
        var reader = DERReader(sequence.value)
        var topics: [APNsTopic] = []
        while !reader.isAtEnd {
            let topic = try reader.utf8String("a topic name")
            guard !reader.isAtEnd else {
                throw DERReader.DERError(description: "topic \"\(topic)\" has no SEQUENCE of kinds after it")
            }
            let kindsElement = try reader.next(DERReader.sequence, "the kinds SEQUENCE of topic \"\(topic)\"")
            var kindsReader = DERReader(kindsElement.value)
            var kinds: [String] = []
            while !kindsReader.isAtEnd {
                kinds.append(try kindsReader.utf8String("a kind of topic \"\(topic)\""))
            }
            topics.append(APNsTopic(topic: topic, kinds: kinds))
        }
        return topics
    }

    /// The DER value for `topics`, as Apple's portal writes it.
    package static func encode(_ topics: [APNsTopic]) -> [UInt8] {
        DERWriter.sequence(topics.flatMap { topic in
            [DERWriter.utf8String(topic.topic), DERWriter.sequence(topic.kinds.map(DERWriter.utf8String))]
        })
    }
}
