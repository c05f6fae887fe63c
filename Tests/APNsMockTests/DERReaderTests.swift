// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Testing

/// The topics extension parser must read Apple's shape and turn every malformed value into
/// an error (never a trap): certificates are untrusted input.
@Suite struct DERReaderTests {
    let topics = [APNsTopic(topic: "com.x.app", kinds: ["app"]),
                  APNsTopic(topic: "com.x.app.voip", kinds: ["voip"]),
                  APNsTopic(topic: "com.x.app.complication", kinds: ["complication"])]

    @Test func roundTripsApplesShape() async throws {
        let der = APNsTopics.encode(topics)
        #expect(der.first == 0x30)
        #expect(try APNsTopics.parse(der) == topics)
    }

    @Test func longLengthsUseTheLongForm() async throws {
        let many = (0..<40).map { APNsTopic(topic: "com.example.app\($0)", kinds: ["app", "voip"]) }
        let der = APNsTopics.encode(many)
        #expect(der[1] == 0x82)
        #expect(try APNsTopics.parse(der) == many)
    }

    @Test func emptyListIsValid() async throws {
        #expect(try APNsTopics.parse([0x30, 0x00]) == [])
    }

    @Test(arguments: [
        ([], "unexpected end"),
        ([0x30], "missing length"),
        ([0x30, 0x05, 0x0C, 0x01], "declares"),
        ([0x30, 0x80, 0x00, 0x00], "indefinite"),
        ([0x30, 0x85, 0x01, 0x01, 0x01, 0x01, 0x01], "too large"),
        ([0x31, 0x00], "expected the topics SEQUENCE"),
        ([0x30, 0x00, 0x00], "unexpected bytes"),
        ([0x30, 0x03, 0x0C, 0x01, 0x61], "no SEQUENCE of kinds"),
        ([0x30, 0x06, 0x0C, 0x01, 0x61, 0x0C, 0x01, 0x62], "kinds SEQUENCE"),
        ([0x30, 0x07, 0x0C, 0x01, 0x61, 0x30, 0x02, 0x02, 0x00], "a kind of topic"),
        ([0x30, 0x05, 0x0C, 0x01, 0xFF, 0x30, 0x00], "not valid UTF-8"),
        ([0x30, 0x04, 0x1F, 0x01, 0x01, 0x00], "multi-byte tag"),
        ([0x30, 0x83, 0xFF, 0xFF, 0xFF], "declares"),
    ] as [([UInt8], String)])
    func malformedValuesAreErrors(bytes: [UInt8], expected: String) {
        #expect {
            _ = try APNsTopics.parse(bytes)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func everyTruncationOfAValidValueFailsCleanly() {
        let der = APNsTopics.encode(topics)
        for length in 0..<der.count {
            #expect(throws: DERReader.DERError.self) { try APNsTopics.parse(Array(der.prefix(length))) }
        }
    }

    @Test func everySingleByteCorruptionIsHandled() {
        // Whatever each byte becomes, parsing returns or throws; it never traps.
        let der = APNsTopics.encode(topics)
        for index in der.indices {
            for value: UInt8 in [0x00, 0x7F, 0x80, 0xFF] {
                var bytes = der
                bytes[index] = value
                _ = try? APNsTopics.parse(bytes)
            }
        }
    }
}
