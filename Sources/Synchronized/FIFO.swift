// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A first-in first-out queue over an array and a head index: taking from the front is O(1)
/// where `Array.removeFirst` moves every element. The storage is reset (its capacity kept)
/// whenever the queue runs empty, and compacted when more than 1,024 taken elements are over
/// half of it, so a queue that never quite empties does not grow. The buffer of
/// `FeedPrefetcher`, `AsyncSequenceFeed`, `ResultChannel` and `SingleSendQueue` in the sender,
/// and the mock's `DeviceJudge` (which tokens to forget first): each holds it in a `Locked`
/// state, and it lives here, beside the lock, so the mock needs no sender module for it.
package struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    package init() {}

    package var count: Int { storage.count - head }
    package var isEmpty: Bool { head == storage.count }

    /// The elements in order, first to last.
    package var elements: ArraySlice<Element> { storage[head...] }

    package mutating func append(_ element: Element) { storage.append(element) }

    package mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes the first element `matches` accepts and returns it.
    package mutating func remove(firstWhere matches: (Element) -> Bool) -> Element? {
        guard let position = storage[head...].firstIndex(where: matches) else { return nil }
        return storage.remove(at: position)
    }

    /// Removes everything and returns it, in order (the storage is released).
    package mutating func drain() -> [Element] {
        let left = Array(storage[head...])
        storage.removeAll()
        head = 0
        return left
    }
}
