// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsTransport
import Testing

@Suite("Header bytes refilled per message: storage that only grows, emptied by a count")
struct GrowingBytesTests {
    func contents(_ bytes: GrowingBytes) -> [UInt8] { bytes.withUnsafeBytes { Array($0) } }

    @Test("Appends of every size keep every byte in order across growth, and a refill after emptying holds only the new bytes")
    func appendsAcrossGrowth() {
        var bytes = GrowingBytes()
        var expected: [UInt8] = []
        for size in [0, 1, 7, 255, 256, 1, 1000, 3] {
            let chunk = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) }
            chunk.withUnsafeBufferPointer { bytes.append($0) }
            expected += chunk
            bytes.append(0xAB)
            expected.append(0xAB)
            #expect(bytes.count == expected.count)
        }
        #expect(contents(bytes) == expected)
        let capacity = bytes.capacity
        bytes.removeAll()
        #expect(bytes.count == 0 && contents(bytes).isEmpty && bytes.capacity == capacity)
        Array("name".utf8).withUnsafeBufferPointer { name in Array("value".utf8).withUnsafeBufferPointer { bytes.append(name, $0) } }
        #expect(String(decoding: contents(bytes), as: UTF8.self) == "namevalue")
        bytes.removeAll(keepingAtMost: capacity - 1)
        #expect(bytes.capacity == 0 && bytes.count == 0)
    }

    @Test("Text and values written at a pointer land in order, across growth; a bridged (non-native) String's bytes too")
    func textAndWrittenValues() {
        var bytes = GrowingBytes()
        var expected = ""
        for round in 0..<40 {
            let text = round % 3 == 0 ? "" : "é-\(round)-" + String(repeating: "v", count: round * 7)
            bytes.append(utf8: text)
            expected += text
            bytes.append(count: 3) { out in "xyz".utf8.enumerated().forEach { out.storeBytes(of: $1, toByteOffset: $0, as: UInt8.self) } }
            expected += "xyz"
        }
        bytes.append(count: 0) { _ in Issue.record("nothing to write") }
        let sub = Substring("--sub--").dropFirst(2).dropLast(2)
        bytes.append(utf8: String(sub))
        expected += "sub"
        #expect(String(decoding: contents(bytes), as: UTF8.self) == expected)
    }

    @Test("Written in place: the mutable view covers exactly the bytes in use, and has a base address even when empty")
    func writtenInPlace() {
        var bytes = GrowingBytes()
        bytes.withUnsafeMutableBytes { #expect($0.baseAddress != nil && $0.isEmpty) }
        Array("ABC".utf8).withUnsafeBufferPointer { bytes.append($0) }
        bytes.withUnsafeMutableBytes { buffer in
            #expect(buffer.count == 3)
            for index in buffer.indices { buffer[index] |= 0x20 }
        }
        #expect(String(decoding: contents(bytes), as: UTF8.self) == "abc")
    }
}
