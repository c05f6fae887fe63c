// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsMockInbox
import Testing

@Suite("Mock inbox: the store's bounds")
struct InboxStoreTests {
    private func event(_ number: Int) -> InboxEvent {
        InboxEvent(protocolName: "h2", status: 200, accepted: true, token: String(repeating: "0", count: 62) + "\(10 + number)", connection: 1)
    }

    @Test("The ring keeps the newest N, newest first, and counts what it saw")
    func ringKeepsNewest() {
        let store = InboxStore(limit: 5)
        for number in 1...8 { store.gatewayAnswered(event(number)) }
        let (entries, kept, seen) = store.newest(100)
        #expect(kept == 5 && seen == 8)
        #expect(entries.map(\.id) == [8, 7, 6, 5, 4])
        #expect(entries.first?.event.deviceToken?.hasSuffix("18") == true)
        #expect(store.newest(2).entries.map(\.id) == [8, 7])
        store.clear()
        #expect(store.newest(100).entries.isEmpty)
        store.gatewayAnswered(event(9))
        #expect(store.newest(100).entries.map(\.id) == [9])
    }

    @Test("A subscriber that does not read is closed once its backlog is full; the others go on")
    func slowSubscriberIsClosed() async {
        let store = InboxStore(limit: 10)
        guard let slow = store.subscribe()?.updates, let reader = store.subscribe()?.updates else {
            Issue.record("subscribe refused")
            return
        }
        #expect(store.subscriberCount == 2)
        var reading = reader.makeAsyncIterator()
        var read = 0
        for number in 1...(InboxStore.subscriberBacklog + 1) {
            store.gatewayAnswered(event(number))
            if case .added? = await reading.next() { read += 1 }
        }
        #expect(read == InboxStore.subscriberBacklog + 1)
        #expect(store.subscriberCount == 1)
        // The slow one gets what fitted in its backlog, then its stream ends.
        var received = 0
        for await _ in slow { received += 1 }
        #expect(received == InboxStore.subscriberBacklog)
    }

    @Test("Live subscribers are bounded; close ends them all")
    func subscribersBounded() async {
        let store = InboxStore(limit: 1)
        var streams: [AsyncStream<InboxStore.Update>] = []
        for _ in 0..<InboxStore.maxSubscribers {
            if let stream = store.subscribe()?.updates { streams.append(stream) }
        }
        #expect(streams.count == InboxStore.maxSubscribers)
        #expect(store.subscribe() == nil)
        store.unsubscribe(1)
        #expect(store.subscriberCount == InboxStore.maxSubscribers - 1)
        #expect(store.subscribe() != nil)
        store.close()
        for stream in streams {
            var count = 0
            for await _ in stream { count += 1 }
            #expect(count == 0)
        }
        #expect(store.subscriberCount == 0)
    }
}
