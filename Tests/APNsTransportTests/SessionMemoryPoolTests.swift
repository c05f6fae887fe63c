// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsTransport
import CNGHTTP2
import Testing

@Suite("nghttp2's blocks from a pool per session: sizes, contents, reuse and the cache bound")
struct SessionMemoryPoolTests {
    /// A block and the byte pattern written into it.
    struct Block {
        let pointer: UnsafeMutableRawPointer
        let size: Int
        let seed: UInt8
    }

    func fill(_ block: Block) {
        for offset in 0..<block.size { block.pointer.storeBytes(of: block.seed &+ UInt8(truncatingIfNeeded: offset), toByteOffset: offset, as: UInt8.self) }
    }

    func intact(_ block: Block, first count: Int? = nil) -> Bool {
        (0..<(count ?? block.size)).allSatisfy { block.pointer.load(fromByteOffset: $0, as: UInt8.self) == block.seed &+ UInt8(truncatingIfNeeded: $0) }
    }

    @Test("Blocks of every class and beyond keep their bytes, are 16-byte aligned, come back for reuse, and all are given back")
    func sizesAndReuse() throws {
        let pool = try #require(SessionMemoryPool())
        let mem = pool.allocator
        var blocks: [Block] = []
        for (index, size) in [0, 1, 15, 16, 17, 32, 33, 64, 100, 255, 256, 257, 1000, 2048, 2049, 4096, 4097, 10_000].enumerated() {
            let pointer = try #require(mem.malloc!(size, mem.mem_user_data))
            #expect(UInt(bitPattern: pointer) % 16 == 0)
            let block = Block(pointer: pointer, size: size, seed: UInt8(truncatingIfNeeded: index &* 17))
            fill(block)
            blocks.append(block)
        }
        #expect(pool.blocksInUse == blocks.count)
        #expect(blocks.allSatisfy { intact($0) }, "no block overlaps another")
        for block in blocks { mem.free!(block.pointer, mem.mem_user_data) }
        #expect(pool.blocksInUse == 0)
        #expect(pool.cachedBytes > 0 && pool.cachedBytes <= SessionMemoryPool.cacheLimit)
        // A freed small block is handed out again for the same class.
        let first = try #require(mem.malloc!(100, mem.mem_user_data))
        mem.free!(first, mem.mem_user_data)
        let again = try #require(mem.malloc!(120, mem.mem_user_data))
        #expect(again == first, "the 128-byte class's freed block is reused")
        mem.free!(again, mem.mem_user_data)
        mem.free!(nil, mem.mem_user_data)
        #expect(pool.blocksInUse == 0)
    }

    @Test("calloc zeroes and refuses a count times size that overflows; realloc keeps the contents growing and shrinking, small to large and back")
    func callocAndRealloc() throws {
        let pool = try #require(SessionMemoryPool())
        let mem = pool.allocator
        let dirty = try #require(mem.malloc!(200, mem.mem_user_data))
        dirty.initializeMemory(as: UInt8.self, repeating: 0xEE, count: 200)
        mem.free!(dirty, mem.mem_user_data)
        let zeroed = try #require(mem.calloc!(25, 8, mem.mem_user_data))
        #expect((0..<200).allSatisfy { zeroed.load(fromByteOffset: $0, as: UInt8.self) == 0 }, "a reused block is zeroed too")
        mem.free!(zeroed, mem.mem_user_data)
        #expect(mem.calloc!(Int.max / 2, 4, mem.mem_user_data) == nil)

        var block = Block(pointer: try #require(mem.malloc!(40, mem.mem_user_data)), size: 40, seed: 3)
        fill(block)
        for size in [60, 64, 500, 5000, 20_000, 3000, 70, 10] {
            let moved = try #require(mem.realloc!(block.pointer, size, mem.mem_user_data))
            let kept = min(block.size, size)
            block = Block(pointer: moved, size: size, seed: block.seed)
            #expect(intact(block, first: kept), "realloc to \(size) kept the first \(kept) bytes")
            fill(block)
        }
        #expect(pool.blocksInUse == 1)
        #expect(mem.realloc!(block.pointer, 0, mem.mem_user_data) == nil)
        #expect(pool.blocksInUse == 0)
        let fresh = try #require(mem.realloc!(nil, 50, mem.mem_user_data))
        mem.free!(fresh, mem.mem_user_data)
        #expect(pool.blocksInUse == 0)
    }

    @Test("However large a burst, the pool keeps at most its cache limit of freed blocks")
    func cacheBound() throws {
        let pool = try #require(SessionMemoryPool())
        let mem = pool.allocator
        let burst = (0..<2000).compactMap { index in mem.malloc!([40, 300, 1500, 4000][index % 4], mem.mem_user_data) }
        #expect(burst.count == 2000)
        for pointer in burst { mem.free!(pointer, mem.mem_user_data) }
        #expect(pool.blocksInUse == 0)
        #expect(pool.cachedBytes <= SessionMemoryPool.cacheLimit)
        #expect(pool.cachedBytes > SessionMemoryPool.cacheLimit - 4096, "the cache fills up to its bound")
    }
}
