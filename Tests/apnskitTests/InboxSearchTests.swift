// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsMockInbox
import Testing

/// The inbox search as a library (issue 22): folded text, the length bound, early stops.
@Suite("Mock inbox: search")
struct InboxSearchTests {
    private func event(_ payload: String) -> InboxEvent {
        InboxEvent(protocolName: "h2", status: 200, accepted: true, token: String(repeating: "ab", count: 32), topic: "com.Example.app",
                   payload: Array(payload.utf8), connection: 1)
    }

    private func query(_ parameters: [(String, String)]) -> InboxQuery? {
        try? InboxQuery.parse(parameters, maximum: 100).get()
    }

    @Test("q matches the payload and the fields in any ASCII case; a miss is a miss")
    func foldedSearch() throws {
        let store = InboxStore(limit: 10)
        store.gatewayAnswered(event(#"{"aps":{"alert":"Your ORDER shipped"}}"#))
        store.gatewayAnswered(event(#"{"aps":{"alert":"nothing here"}}"#))
        let order = try #require(query([("q", "order SHIPPED")]))
        #expect(store.newest(10, where: order.matches).entries.map(\.id) == [1])
        let topic = try #require(query([("q", "EXAMPLE.APP")]))
        #expect(store.newest(10, where: topic.matches).entries.count == 2)
        let miss = try #require(query([("q", "shipped!")]))
        #expect(store.newest(10, where: miss.matches).entries.isEmpty)
    }

    @Test("Text filters over 256 bytes are refused with a sentence")
    func lengthBound() {
        #expect(query([("q", String(repeating: "x", count: 256))]) != nil)
        for name in ["q", "token", "topic", "push-type"] {
            guard case .failure(let error) = InboxQuery.parse([(name, String(repeating: "x", count: 257))], maximum: 100) else {
                Issue.record("\(name) of 257 bytes was taken")
                continue
            }
            #expect(error.message == "\(name) is 257 bytes long, more than 256; search for a shorter part.")
        }
    }

    @Test("A search stops early when its asker has gone or the store closes")
    func searchStopsEarly() {
        let store = InboxStore(limit: 2000)
        for _ in 0..<2000 { store.gatewayAnswered(event("x")) }
        var looked = 0
        let gone = store.newest(2000, where: { _ in looked += 1; return true }, abandoned: { true })
        #expect(gone.entries.count == looked && looked < 2000 && looked > 0, "looked at \(looked)")
        store.close()
        looked = 0
        let closed = store.newest(2000, where: { _ in looked += 1; return true })
        #expect(closed.entries.count < 2000, "a closed store ended the walk after \(closed.entries.count)")
    }
}
