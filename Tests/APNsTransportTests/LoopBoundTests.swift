// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Foundation
import Testing

/// `LoopBound` is how a Sendable owner carries a loop-confined object: its accessor asserts
/// it is on the loop (a trap, so it is not triggered here; `isOnLoop` is what it checks).
@Suite("LoopBound")
struct LoopBoundTests {
    final class Box { var value = 0 }

    @Test("On its loop's thread the value is reachable; off it, isOnLoop says no")
    func onlyOnItsLoop() async {
        let loop = EventLoop.shared
        let bound = LoopBound(Box(), loop: loop)
        #expect(!bound.isOnLoop)
        let seen: Int = await withCheckedContinuation { continuation in
            loop.execute {
                precondition(bound.isOnLoop)
                bound.value.value += 41
                bound.value.value += 1
                continuation.resume(returning: bound.value.value)
            }
        }
        #expect(seen == 42)

        // Another loop's thread is not this loop's.
        let other = EventLoop(name: "loopbound.test")
        defer { other.shutdown() }
        let onOther: Bool = await withCheckedContinuation { continuation in
            other.execute { continuation.resume(returning: bound.isOnLoop) }
        }
        #expect(!onOther)
    }
}
