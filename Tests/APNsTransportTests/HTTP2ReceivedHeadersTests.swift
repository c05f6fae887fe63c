// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsTransport
import Testing

@Suite("A request's headers as received: one byte array, a row of offsets per field")
struct HTTP2ReceivedHeadersTests {
    @Test("Fields keep their order, names and values; a lookup finds the first of a name")
    func layout() {
        let pairs = [(name: "x-a", value: "1"), (name: "x-empty", value: ""), (name: "x-a", value: "second"), (name: "authorization", value: "bearer é")]
        let headers = HTTP2ReceivedHeaders(pairs)
        #expect(headers.count == 4)
        #expect(headers.pairs.map { "\($0.name)=\($0.value)" } == ["x-a=1", "x-empty=", "x-a=second", "authorization=bearer é"])
        #expect(headers.value(of: "x-a") == "1")
        #expect(headers.value(of: "x-empty") == "")
        #expect(headers.value(of: "x-") == nil)
        #expect(headers.value(of: "authorization") == "bearer é")
        #expect(headers.byteCount == pairs.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count })
    }

    @Test("Emptied for the next request it keeps its storage, unless that grew past the bound; refilled, it holds only the new fields")
    func recycling() {
        var headers = HTTP2ReceivedHeaders([(name: "x", value: String(repeating: "v", count: 300))])
        let capacity = headers.capacity
        #expect(capacity >= 301)
        headers.removeAll(keepingAtMost: capacity)
        #expect(headers.isEmpty && headers.byteCount == 0 && headers.pairs.isEmpty)
        #expect(headers.capacity == capacity)
        "ab".utf8.withContiguousStorageIfAvailable { name in "c".utf8.withContiguousStorageIfAvailable { headers.append(name: name, value: $0) } }
        #expect(headers.pairs.map { "\($0.name)=\($0.value)" } == ["ab=c"])
        headers.removeAll(keepingAtMost: capacity - 1)
        #expect(headers.capacity == 0 && headers.pairs.isEmpty)
    }

    @Test("A request built in code shows its headers in the byte form too")
    func requestBuiltInCode() {
        var request = HTTP2Request(path: "/", headers: [(name: "x-own", value: "a")], authorization: "bearer t")
        request.sharedHeaders = HTTP2HeaderBlock([(name: "x-shared", value: "s")])
        #expect(request.receivedHeaders.pairs.map(\.name) == ["x-shared", "x-own", "authorization"])
        request.received = HTTP2ReceivedHeaders([(name: "x-got", value: "g")])
        #expect(request.receivedHeaders.pairs.map(\.name) == ["x-got"])
        #expect(request.header("x-got") == "g")
    }
}
