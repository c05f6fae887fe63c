// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0

/// A table keyed by the stream ids of a client's own requests, which its nghttp2 session hands
/// out in order (1, 3, 5, ...).
///
/// The keys in the table at once are a window of that sequence, so the slot of key `k` is
/// simply `k / 2` modulo the table's size, and while the window is no wider than the
/// table, every key has its slot to itself: a lookup is a shift, a mask and a compare. A
/// `Dictionary` hashes each key with seeded SipHash; on the sender's path a request took some
/// seven lookups (its submit, its HEADERS going out, its body, its answer's headers, its
/// close, its deadline's insert and removal), about 1.1k instructions.
///
/// Any key works, only slower: one whose slot is taken (a stream that outlived the window: a
/// slow answer while a table's worth of later ones came and went) goes to an overflow
/// `Dictionary`, looked at only when it is not empty, so even chosen keys would cost no more
/// than a dictionary. The table doubles when half full, so that a wider window fits it again;
/// it holds what the session holds (open streams), and nothing more. Values are small here (a
/// reference, a deadline): the mock's parked requests (some 170 bytes each) stay in a
/// dictionary, because moving them in and out of this table's optional slots cost more than
/// the hashing saved (docs/benchmarks.md).
struct SequentialKeyTable<Value> {
    /// Per slot, its key (`Int32.min`: empty; `Int32.min` itself is kept in the overflow) and
    /// its value. Two arrays: a probe compares plain integers, and only a hit reads the value.
    private var keys: [Int32]
    private var values: [Value?]
    private var mask: Int
    /// Keys whose slot another key held when they came.
    private var overflow: [Int32: Value] = [:]
    private(set) var count = 0

    init() {
        keys = Array(repeating: .min, count: 32)
        values = Array(repeating: nil, count: 32)
        mask = 31
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func slot(_ key: Int32) -> Int { Int(key >> 1) & mask }

    /// The value of `key`, if it is in the table. Inlined, as are `insert` and `removeValue`:
    /// a call cost as much as the lookup (the client looks a stream up for each of an
    /// answer's headers).
    @inline(__always)
    subscript(key: Int32) -> Value? {
        let index = slot(key)
        if keys[index] == key, key != .min { return values[index] }
        return overflow.isEmpty ? nil : overflow[key]
    }

    /// Adds (or replaces) the value of `key`.
    @inline(__always)
    mutating func insert(_ value: consuming Value, for key: Int32) {
        let index = slot(key)
        if keys[index] == key, key != .min {
            values[index] = value
            return
        }
        if !overflow.isEmpty, overflow[key] != nil {
            overflow[key] = value
            return
        }
        if (count + 1) * 2 > keys.count { grow() }
        count += 1
        place(value, for: key)
    }

    /// Puts a key that is not in the table into its slot, or the overflow when that is taken.
    private mutating func place(_ value: consuming Value, for key: Int32) {
        let index = slot(key)
        if keys[index] == .min, key != .min {
            keys[index] = key
            values[index] = value
        } else {
            overflow[key] = value
        }
    }

    /// Takes `key` out; its value, or nil when it was not in the table.
    @inline(__always) @discardableResult
    mutating func removeValue(for key: Int32) -> Value? {
        let index = slot(key)
        if keys[index] == key, key != .min {
            count -= 1
            keys[index] = .min
            return values[index].take()
        }
        guard !overflow.isEmpty, let value = overflow.removeValue(forKey: key) else { return nil }
        count -= 1
        return value
    }

    mutating func removeAll() {
        for index in keys.indices where keys[index] != .min {
            keys[index] = .min
            values[index] = nil
        }
        overflow.removeAll()
        count = 0
    }

    /// Every key and its value, by key (for our sequences, the order they were handed out in).
    var entries: [(key: Int32, value: Value)] {
        var all: [(key: Int32, value: Value)] = []
        for index in keys.indices where keys[index] != .min {
            if let value = values[index] { all.append((keys[index], value)) }
        }
        all += overflow.map { (key: $0.key, value: $0.value) }
        return all.sorted { $0.key < $1.key }
    }

    private mutating func grow() {
        let old = entries
        keys = Array(repeating: .min, count: keys.count * 2)
        values = Array(repeating: nil, count: keys.count)
        mask = keys.count - 1
        overflow.removeAll()
        for (key, value) in old { place(value, for: key) }
    }
}

extension SequentialKeyTable: Sendable where Value: Sendable {}
