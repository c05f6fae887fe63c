// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The event loop's timers: a binary min-heap ordered by deadline, then by id.
///
/// Why a heap: the loop asks for the earliest deadline before every wait and runs what is due
/// after it. A heap answers the first in O(1) and pops each due timer in O(log n), where the
/// loop used to scan every timer on every turn (thousands of request timeouts on a busy client).
/// Timers with the same deadline fire in the order they were scheduled (the id breaks the tie).
///
/// Cancelling is lazy: the work is dropped from `work` at once (O(1)) and its heap entry is
/// skipped when it reaches the top. So that a client cancelling a timeout per answered request
/// does not grow the heap without bound, the heap is rebuilt from the live timers whenever the
/// cancelled entries outnumber them (amortized O(1) per cancel; at most `2 * count + 64` entries
/// are ever stored).
///
/// A value type without locks: its owner (the loop) keeps it on one thread.
struct TimerQueue<Work> {
    private struct Entry {
        let deadline: UInt64
        let id: UInt64

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    private var heap: [Entry] = []
    private var work: [UInt64: Work] = [:]
    /// The id the next `schedule` returns; ids are never reused, so cancelling a timer that
    /// already fired (or was cancelled) is a no-op and never hits a newer one.
    private(set) var nextID: UInt64 = 1

    /// Timers scheduled and neither fired nor cancelled.
    var count: Int { work.count }
    var isEmpty: Bool { work.isEmpty }
    /// Heap entries held, cancelled ones included (what the compaction bound is about).
    var storedEntries: Int { heap.count }

    /// Adds `item` to fire at `deadline` (any monotonic unit; the loop uses milliseconds).
    mutating func schedule(at deadline: UInt64, _ item: Work) -> UInt64 {
        let id = nextID
        nextID += 1
        work[id] = item
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    /// Drops the timer `id`; nothing happens when it already fired or was cancelled.
    mutating func cancel(_ id: UInt64) {
        guard work.removeValue(forKey: id) != nil else { return }
        if heap.count > 2 * work.count + 64 { rebuild() }
    }

    /// The earliest deadline of a live timer (cancelled entries on top are dropped on the way).
    mutating func nextDeadline() -> UInt64? {
        dropCancelledTop()
        return heap.first?.deadline
    }

    /// The next timer due at `now` among those whose id is below `limit`, removed from the
    /// queue, or nil. `limit` (the `nextID` read before a pass) keeps timers scheduled by the
    /// pass's own work for the next pass, so a timer that schedules another at 0 s cannot keep
    /// the loop from polling.
    mutating func popDue(now: UInt64, scheduledBefore limit: UInt64) -> Work? {
        dropCancelledTop()
        // A timer scheduled during the pass has a deadline >= the pass's `now` and an id above
        // every older one, so every older due timer sorts before it: stopping here loses none.
        guard let top = heap.first, top.deadline <= now, top.id < limit else { return nil }
        removeTop()
        return work.removeValue(forKey: top.id)
    }

    mutating func removeAll() {
        heap.removeAll()
        work.removeAll()
    }

    private mutating func dropCancelledTop() {
        while let top = heap.first, work[top.id] == nil { removeTop() }
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    /// Keeps the live entries and restores the heap order bottom-up (O(n)).
    private mutating func rebuild() {
        heap.removeAll { work[$0.id] == nil }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.precedes(heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let entry = heap[parent]
        while true {
            var child = 2 * parent + 1
            guard child < heap.count else { break }
            if child + 1 < heap.count, heap[child + 1].precedes(heap[child]) { child += 1 }
            guard heap[child].precedes(entry) else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = entry
    }
}
