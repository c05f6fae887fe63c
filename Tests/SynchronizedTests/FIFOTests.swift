// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Synchronized
import Testing

/// The queue the sender's feeds and the mock's device judge hold in their locked states.
@Suite struct FIFOTests {
    @Test("First in, first out, across the compaction past 1,024 taken elements and the reset when it runs empty")
    func order() {
        var queue = FIFO<Int>()
        #expect(queue.isEmpty && queue.popFirst() == nil)
        var taken: [Int] = []
        // Three in, two out: the queue never runs empty, so only compaction (taken elements
        // over half of the storage, past 1,024) keeps it small.
        for value in 0..<6_000 {
            queue.append(value)
            if value % 3 != 0 { taken.append(queue.popFirst()!) }
        }
        #expect(taken == Array(0..<4_000))
        #expect(queue.count == 2_000 && Array(queue.elements) == Array(4_000..<6_000))
        while let value = queue.popFirst() { taken.append(value) }
        #expect(taken == Array(0..<6_000) && queue.isEmpty && queue.count == 0)
        queue.append(7)
        #expect(Array(queue.elements) == [7] && queue.popFirst() == 7)
    }

    @Test("remove(firstWhere:) takes the first match only; drain hands back the rest in order")
    func removeAndDrain() {
        var queue = FIFO<Int>()
        for value in [1, 2, 3, 2, 4] { queue.append(value) }
        #expect(queue.popFirst() == 1)
        #expect(queue.remove(firstWhere: { $0 == 2 }) == 2)
        #expect(queue.remove(firstWhere: { $0 == 9 }) == nil)
        #expect(Array(queue.elements) == [3, 2, 4] && queue.count == 3)
        #expect(queue.drain() == [3, 2, 4])
        #expect(queue.isEmpty && queue.drain().isEmpty)
    }
}
