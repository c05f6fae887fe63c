// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0

/// A table keyed by ids handed out in order: the stream ids of a client's own requests, which
/// its nghttp2 session hands out as 1, 3, 5, ... (`HTTP2ClientRole`, the connection's
/// deadlines), and the indices of a batch's notifications, 0, 1, 2, ... (the sender's
/// requests in flight, `BatchRunStateMachine`).
///
/// The keys in the table at once are a window of that sequence, so the slot of key `k` is
/// simply `k / step` modulo the table's size, and while the window is no wider than the
/// table, every key has its slot to itself: a lookup is a shift, a mask and a compare. A
/// `Dictionary` hashes each key with seeded SipHash; on the sender's path a request took some
/// seven lookups (its submit, its HEADERS going out, its body, its answer's headers, its
/// close, its deadline's insert and removal), about 1.1k instructions, and the batch's table
/// of notifications in flight about 700 more (docs/benchmarks.md, issue 33).
///
/// Any key works, only slower: one whose slot is taken (a stream that outlived the window: a
/// slow answer while a table's worth of later ones came and went) goes to an overflow
/// `Dictionary`, looked at only when it is not empty, so even chosen keys would cost no more
/// than a dictionary. The table doubles when half full, so that a wider window fits it again;
/// it holds what its owner holds (open streams, notifications in flight), and nothing more.
/// Values are small here (a reference, a deadline, a notification's entry and handle): the
/// mock's parked requests (some 170 bytes each) stay in a dictionary, because moving them in
/// and out of this table's optional slots cost more than the hashing saved.
///
/// `public` and `@inlinable`, in a module no product exports, so each user gets a version
/// specialized for its values (`Locked` says why not `package`).
public struct SequentialKeyTable<Value> {
    /// Per slot, its key (`Int.min`: empty; `Int.min` itself is kept in the overflow) and its
    /// value. Two arrays: a probe compares plain integers, and only a hit reads the value.
    @usableFromInline var keys: [Int]
    @usableFromInline var values: [Value?]
    @usableFromInline var mask: Int
    /// log2 of the step between consecutive keys (1 for odd stream ids, 0 for indices).
    @usableFromInline let shift: Int
    /// Keys whose slot another key held when they came.
    @usableFromInline var overflow: [Int: Value] = [:]
    @usableFromInline var stored = 0
    /// How many keys the table holds.
    @inlinable public var count: Int { stored }

    /// A table for keys that come `step` apart (a power of two; 2 for a client's stream ids).
    @inlinable
    public init(step: Int = 1) {
        keys = Array(repeating: .min, count: 32)
        values = Array(repeating: nil, count: 32)
        mask = 31
        shift = max(step, 1).trailingZeroBitCount
    }

    @inlinable public var isEmpty: Bool { stored == 0 }

    @inlinable @inline(__always)
    func slot(_ key: Int) -> Int { (key >> shift) & mask }

    /// The value of `key`, if it is in the table. Inlined, as are `insert` and `removeValue`:
    /// a call cost as much as the lookup (the client looks a stream up for each of an
    /// answer's headers).
    @inlinable @inline(__always)
    public subscript(key: Int) -> Value? {
        let index = slot(key)
        if keys[index] == key, key != .min { return values[index] }
        return overflow.isEmpty ? nil : overflow[key]
    }

    /// Adds (or replaces) the value of `key`.
    @inlinable @inline(__always)
    public mutating func insert(_ value: consuming Value, for key: Int) {
        let index = slot(key)
        if keys[index] == key, key != .min {
            values[index] = value
            return
        }
        if !overflow.isEmpty, overflow[key] != nil {
            overflow[key] = value
            return
        }
        if (stored + 1) * 2 > keys.count { grow() }
        stored += 1
        place(value, for: key)
    }

    /// Puts a key that is not in the table into its slot, or the overflow when that is taken.
    @inlinable
    mutating func place(_ value: consuming Value, for key: Int) {
        let index = slot(key)
        if keys[index] == .min, key != .min {
            keys[index] = key
            values[index] = value
        } else {
            overflow[key] = value
        }
    }

    /// Takes `key` out; its value, or nil when it was not in the table.
    @inlinable @inline(__always) @discardableResult
    public mutating func removeValue(for key: Int) -> Value? {
        let index = slot(key)
        if keys[index] == key, key != .min {
            stored -= 1
            keys[index] = .min
            return values[index].take()
        }
        guard !overflow.isEmpty, let value = overflow.removeValue(forKey: key) else { return nil }
        stored -= 1
        return value
    }

    @inlinable
    public mutating func removeAll() {
        for index in keys.indices where keys[index] != .min {
            keys[index] = .min
            values[index] = nil
        }
        overflow.removeAll()
        stored = 0
    }

    /// Every key and its value, by key (for our sequences, the order they were handed out in).
    @inlinable
    public var entries: [(key: Int, value: Value)] {
        var all: [(key: Int, value: Value)] = []
        for index in keys.indices where keys[index] != .min {
            if let value = values[index] { all.append((keys[index], value)) }
        }
        all += overflow.map { (key: $0.key, value: $0.value) }
        return all.sorted { $0.key < $1.key }
    }

    @inlinable
    mutating func grow() {
        let old = entries
        keys = Array(repeating: .min, count: keys.count * 2)
        values = Array(repeating: nil, count: keys.count)
        mask = keys.count - 1
        overflow.removeAll()
        for (key, value) in old { place(value, for: key) }
    }
}

extension SequentialKeyTable: Sendable where Value: Sendable {}
