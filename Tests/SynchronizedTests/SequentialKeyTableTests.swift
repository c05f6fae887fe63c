// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Synchronized
import Testing

/// The table of ids handed out in order (`SequentialKeyTable`: the client's stream book, the
/// batch's notifications in flight) against a `Dictionary` doing the same operations: ids in
/// order, ids that outlive the window (the overflow), any key at all.
@Suite("Sequential key table: a dictionary for ids handed out in order")
struct SequentialKeyTableTests {
    /// A deterministic generator (SplitMix64), so a failure repeats.
    private struct SplitMix {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// Checks every key the model has and a few it has not, the count and the entries' order.
    private func expectSame(_ table: SequentialKeyTable<Int>, _ model: [Int: Int], probing absent: [Int]) {
        #expect(table.count == model.count)
        #expect(table.isEmpty == model.isEmpty)
        for (key, value) in model { #expect(table[key] == value, "key \(key)") }
        for key in absent where model[key] == nil { #expect(table[key] == nil, "absent key \(key)") }
        // Compared first, so that a failure prints a count, not thousands of keys.
        let entries = table.entries
        let sameKeys = entries.map(\.key) == model.keys.sorted()
        let sameValues = entries.map(\.value) == model.keys.sorted().map { model[$0]! }
        #expect(sameKeys && sameValues, "entries: \(entries.count) against \(model.count) in the model")
    }

    @Test("Ids in order (every odd one, as nghttp2 hands them out; every one), a window open at once, some answered late: the same as a Dictionary", arguments: [2, 1])
    func windowOfIDs(step: Int) {
        var table = SequentialKeyTable<Int>(step: step)
        var model: [Int: Int] = [:]
        var random = SplitMix(state: UInt64(step))
        var next = 1
        var open: [Int] = []
        for round in 0..<20_000 {
            // Up to 100 open, as a sender's window; one in 50 answers is held back for long.
            if open.count < 100 || random.next(3) == 0 {
                table.insert(round, for: next)
                model[next] = round
                open.append(next)
                next += step
            } else {
                let position = random.next(50) == 0 ? random.next(open.count) : 0
                let key = open.remove(at: position)
                #expect(table.removeValue(for: key) == model.removeValue(forKey: key))
            }
            if round % 997 == 0 { expectSame(table, model, probing: [next, next + step, 0, -1, open.first.map { $0 - step } ?? 0]) }
        }
        expectSame(table, model, probing: Array(1..<next))
        // A key that is not there: nothing is removed.
        #expect(table.removeValue(for: next + 1000) == nil)
        #expect(table.count == model.count)
    }

    @Test("A stream that outlives a table's worth of later ones, and keys that share a slot, go to the overflow and are still found")
    func overflow() {
        var table = SequentialKeyTable<Int>(step: 2)
        var model: [Int: Int] = [:]
        // Stream 1 stays open while thousands of later ids come and go through its slot.
        table.insert(-1, for: 1)
        model[1] = -1
        for id in stride(from: 3, to: 20_000, by: 2) {
            table.insert(id, for: id)
            model[id] = id
            if id > 101 {
                #expect(table.removeValue(for: id - 100) == model.removeValue(forKey: id - 100))
            }
        }
        expectSame(table, model, probing: [1, 3, 5, 65, 20_001])
        // Keys far apart landing in one slot (a multiple of any table size apart).
        var collide = SequentialKeyTable<String>(step: 2)
        let keys: [Int] = [0, 1 << 20, 2 << 20, 3 << 20, -(1 << 20), .min, .max, Int(Int32.min), Int(Int32.max)]
        for key in keys { collide.insert("v\(key)", for: key) }
        for key in keys { #expect(collide[key] == "v\(key)") }
        #expect(collide.entries.map(\.key) == keys.sorted())
        collide.insert("again", for: 2 << 20)
        #expect(collide[2 << 20] == "again")
        #expect(collide.count == keys.count)
        for key in keys.reversed() { #expect(collide.removeValue(for: key) != nil) }
        #expect(collide.isEmpty)
        #expect(collide[0] == nil)
    }

    @Test("Random keys, inserts, replacements and removals: the same as a Dictionary; removeAll empties it")
    func randomOperations() {
        var table = SequentialKeyTable<Int>()
        var model: [Int: Int] = [:]
        var random = SplitMix(state: 42)
        for round in 0..<30_000 {
            let key = random.next(4) == 0 ? random.next(1 << 30) - (1 << 29) : random.next(600)
            switch random.next(3) {
            case 0, 1:
                table.insert(round, for: key)
                model[key] = round
            default:
                #expect(table.removeValue(for: key) == model.removeValue(forKey: key))
            }
            if round % 1_999 == 0 { expectSame(table, model, probing: (0..<20).map { _ in random.next(600) }) }
        }
        expectSame(table, model, probing: Array(0..<600))
        table.removeAll()
        expectSame(table, [:], probing: Array(0..<600) + model.keys)
        table.insert(7, for: 7)
        #expect(table[7] == 7)
        #expect(table.count == 1)
    }
}
