// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation
import Testing

/// The two per-notification formatters written straight into String storage (the device path
/// and the `apns-id`), checked against Foundation's formatting rather than against themselves.
@Suite("Hex and apns-id formatting, against Foundation")
struct HexAndMessageIDTests {
    @Test("Every byte value encodes as String(format: \"%02x\") does, after a prefix or none")
    func hexMatchesFoundation() {
        let bytes = (0...255).map(UInt8.init)
        let expected = bytes.map { String(format: "%02x", $0) }.joined()
        #expect(Hex.encode(bytes) == expected)
        #expect(Hex.encode(bytes, after: RequestValidator.devicePathPrefix) == "/3/device/" + expected)
        #expect(Hex.encode([]) == "")
    }

    @Test("Generated ids are canonical lower-case version 4 UUIDs that Foundation reads back, and differ")
    func messageIDsAreCanonicalUUIDs() throws {
        var generator = MessageIDGenerator()
        var seen = Set<String>()
        for _ in 0..<2000 {
            let id = generator.next()
            let uuid = try #require(UUID(uuidString: id), "\(id) is not a UUID")
            #expect(uuid.uuidString.lowercased() == id)
            let characters = Array(id)
            #expect(characters[14] == "4", "version nibble of \(id)")
            #expect("89ab".contains(characters[19]), "variant nibble of \(id)")
            seen.insert(id)
        }
        #expect(seen.count == 2000)
    }
}
