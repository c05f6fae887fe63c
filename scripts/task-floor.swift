// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
// The floor under the library path (issue 33; scripts/bench-library.sh builds and runs it):
// Examples/PushWorker's shape with no APNs work at all. A task group keeps 1,000 sends in
// flight; each send is a child task that parks an unsafe continuation in a locked queue; one
// other thread, standing in for the event loop, takes what waits and resumes it in one
// stretch, as apnskit's loop resumes single sends at the end of its turn. What it costs per
// send is the price of "one task per notification, answered from another thread" on this
// machine: the part of PushWorker's CPU that no change inside the library can remove.
// Usage: task-floor [SENDS]   (prints "CPU_MICROSECONDS_PER_SEND SENDS_PER_SECOND")
import Foundation

/// Continuations waiting for the stand-in loop, behind a condition variable.
final class Parked: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: [UnsafeContinuation<Int, Never>] = []

    func park(_ continuation: UnsafeContinuation<Int, Never>) {
        condition.lock()
        waiting.append(continuation)
        condition.signal()
        condition.unlock()
    }

    /// Everything waiting, once something does.
    func takeAll() -> [UnsafeContinuation<Int, Never>] {
        condition.lock()
        while waiting.isEmpty { condition.wait() }
        let taken = waiting
        waiting.removeAll(keepingCapacity: true)
        condition.unlock()
        return taken
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let sends = CommandLine.arguments.count > 1 ? max(1_000, min(Int(CommandLine.arguments[1]) ?? 200_000, 100_000_000)) : 200_000
let parked = Parked()
let loop = Thread {
    while true {
        for continuation in parked.takeAll() { continuation.resume(returning: 1) }
    }
}
loop.start()
let cpuBefore = cpuSeconds()
let start = Date()
let answered = await withTaskGroup(of: Int.self) { group in
    var inFlight = 0
    var answered = 0
    for _ in 0..<sends {
        if inFlight == 1_000 {
            answered += await group.next() ?? 0
            inFlight -= 1
        }
        group.addTask { await withUnsafeContinuation { parked.park($0) } }
        inFlight += 1
    }
    for await one in group { answered += one }
    return answered
}
let cpu = cpuSeconds() - cpuBefore
precondition(answered == sends, "task-floor: \(answered) of \(sends) sends answered")
print(String(format: "%.2f %.0f", cpu * 1e6 / Double(sends), Double(sends) / Date().timeIntervalSince(start)))
exit(0)
