// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsTransport
import Testing

@Suite("Header fields as bytes (a request's as received, an answer's as written): one byte array, a row of offsets per field")
struct HTTP2HeaderFieldsTests {
    @Test("Fields keep their order, names and values; a lookup finds the first of a name")
    func layout() {
        let pairs = [(name: "x-a", value: "1"), (name: "x-empty", value: ""), (name: "x-a", value: "second"), (name: "authorization", value: "bearer é")]
        let headers = HTTP2HeaderFields(pairs)
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
        var headers = HTTP2HeaderFields([(name: "x", value: String(repeating: "v", count: 300))])
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

    @Test("An answer written in place: text values, values formatted at a pointer, refilled per answer; a copy handed on keeps its fields when the kept block is refilled")
    func answerWrittenInPlace() {
        var kept = HTTP2HeaderFields()
        var handedOn: [HTTP2Response] = []
        for round in 0..<3 {
            kept.removeAll()
            kept.append(name: "x-id", value: "id-\(round)")
            kept.append(name: "x-digits", valueCount: 4) { out in
                for index in 0..<4 { out.storeBytes(of: UInt8(ascii: "0") + UInt8(round + index), toByteOffset: index, as: UInt8.self) }
            }
            kept.append(name: "x-empty", value: "")
            kept.append(name: "x-none", valueCount: 0) { _ in Issue.record("nothing to write") }
            handedOn.append(HTTP2Response(status: 200, fields: kept))
        }
        for (round, response) in handedOn.enumerated() {
            #expect(response.allHeaders.map { "\($0.name)=\($0.value)" }
                    == ["x-id=id-\(round)", "x-digits=\((0..<4).map { String(round + $0) }.joined())", "x-empty=", "x-none="])
            #expect(response.header("X-Digits") == (0..<4).map { String(round + $0) }.joined())
        }
        var mixed = HTTP2Response(status: 200, headers: [(name: "content-type", value: "application/json")], fields: kept)
        mixed.headers.append((name: "x-pair", value: "p"))
        #expect(mixed.allHeaders.map(\.name) == ["content-type", "x-pair", "x-id", "x-digits", "x-empty", "x-none"])
        #expect(HTTP2Response(status: 204).allHeaders.isEmpty)
    }

    @Test("A request built in code shows its headers in the byte form too")
    func requestBuiltInCode() {
        var request = HTTP2Request(path: "/", headers: [(name: "x-own", value: "a")], authorization: "bearer t")
        request.sharedHeaders = HTTP2HeaderBlock([(name: "x-shared", value: "s")])
        #expect(request.receivedHeaders.pairs.map(\.name) == ["x-shared", "x-own", "authorization"])
        request.received = HTTP2HeaderFields([(name: "x-got", value: "g")])
        #expect(request.receivedHeaders.pairs.map(\.name) == ["x-got"])
        #expect(request.header("x-got") == "g")
    }
}
