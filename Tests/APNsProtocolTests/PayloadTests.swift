// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation
import Testing

@Suite("Payloads and JSON")
struct PayloadTests {
    @Test("The aps dictionary carries every field, in a stable order, as valid JSON")
    func builder() throws {
        var payload = Payload()
        payload.title = "Hello"
        payload.subtitle = "Sub"
        payload.body = "Line \"1\"\n"
        payload.badge = 3
        payload.sound = "default"
        payload.category = "MSG"
        payload.threadID = "t1"
        payload.contentAvailable = true
        payload.mutableContent = true
        payload.interruptionLevel = "time-sensitive"
        payload.relevanceScore = 0.5
        payload.custom = [("orderId", .int(42)), ("tags", .array([.string("a"), .null]))]
        let json = payload.json()
        #expect(String(decoding: json, as: UTF8.self) == #"{"aps":{"alert":{"title":"Hello","subtitle":"Sub","body":"Line \"1\"\n"},"badge":3,"sound":"default","category":"MSG","thread-id":"t1","content-available":1,"mutable-content":1,"interruption-level":"time-sensitive","relevance-score":0.5},"orderId":42,"tags":["a",null]}"#)
        #expect(JSONSyntax.isObject(json))
        let parsed = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any]
        #expect((parsed?["aps"] as? [String: Any])?["badge"] as? Int == 3)
    }

    @Test("A body-only alert is the plain string form")
    func plainAlert() {
        var payload = Payload()
        payload.body = "hi"
        #expect(String(decoding: payload.json(), as: UTF8.self) == #"{"aps":{"alert":"hi"}}"#)
    }

    @Test("JSON syntax: accepts valid documents, refuses broken ones and deep nesting")
    func syntax() {
        for good in [#"{}"#, #" {"a":[1,2.5e3,-0,true,false,null,"\u00e9\n"]} "#, #"{"a":{"b":{}}}"#] {
            #expect(JSONSyntax.isObject(Array(good.utf8)), "\(good)")
        }
        for bad in [#""#, #"[]"#, #"{"a":}"#, #"{"a":1,}"#, #"{'a':1}"#, #"{"a":01}"#, #"{"a":"\x"}"#, "{\"a\":\"\u{01}\"}", #"{"a":1} x"#, #"{"#] {
            #expect(!JSONSyntax.isObject(Array(bad.utf8)), "\(bad)")
        }
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(!JSONSyntax.isObject(Array(("{\"a\":" + deep + "}").utf8)))
    }

    @Test("Payload check: empty, too large for the push type, not an object")
    func payloadCheck() {
        #expect(PayloadCheck.validate([], pushType: nil) != nil)
        #expect(PayloadCheck.validate(Array("[1]".utf8), pushType: nil) != nil)
        let big = Array(("{\"a\":\"" + String(repeating: "x", count: 4100) + "\"}").utf8)
        #expect(PayloadCheck.validate(big, pushType: .alert)?.contains("4096") == true)
        #expect(PayloadCheck.validate(big, pushType: .voip) == nil)
        #expect(PayloadCheck.validate(Array("{}".utf8), pushType: .background) == nil)
    }
}
