// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A first-in first-out queue over an array and a head index: taking from the front is O(1)
/// where `Array.removeFirst` moves every element. The storage is reset (its capacity kept)
/// whenever the queue runs empty, and compacted when more than 1,024 taken elements are over
/// half of it, so a queue that never quite empties does not grow. The buffer of
/// `FeedPrefetcher`, `AsyncSequenceFeed`, `ResultChannel` and `SingleSendQueue` in the sender,
/// and the mock's `DeviceJudge` (which tokens to forget first): each holds it in a `Locked`
/// state, and it lives here, beside the lock, so the mock needs no sender module for it.
///
/// Elements are moved out as they are taken, never copied: a slot holds an optional that
/// `popFirst` takes (leaving nil), so a notification queued by value costs no retain and
/// release of each of its fields on the way through. The methods are `@inlinable` (and
/// `public`, as `Locked` says why) so the modules that use it get a version specialized for
/// their element: unspecialized, each element went through the runtime's generic copy and
/// destroy of its type, and storing optionals made the generic code look up
/// `Optional<Element>`'s metadata on every call (docs/benchmarks.md, issue 33's last pass).
public struct FIFO<Element> {
    /// Slots before `head` were taken (nil); from `head` on, each holds its element.
    @usableFromInline var storage: [Element?] = []
    @usableFromInline var head = 0

    @inlinable public init() {}

    @inlinable public var count: Int { storage.count - head }
    @inlinable public var isEmpty: Bool { head == storage.count }

    /// The elements in order, first to last (copies).
    @inlinable public var elements: [Element] { storage[head...].compactMap { $0 } }

    @inlinable public mutating func append(_ element: consuming Element) { storage.append(.some(element)) }

    @inlinable public mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head].take()
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
    @inlinable public mutating func remove(firstWhere matches: (Element) -> Bool) -> Element? {
        guard let position = storage[head...].firstIndex(where: { $0.map(matches) ?? false }) else { return nil }
        return storage.remove(at: position)
    }

    /// Removes everything and returns it, in order (the storage is released).
    @inlinable public mutating func drain() -> [Element] {
        let left = storage[head...].compactMap { $0 }
        storage.removeAll()
        head = 0
        return left
    }
}
