// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
internal import CShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Something the event loop polls: a socket and what to do when it is ready.
///
/// Handlers live on the loop thread only. Before each wait the loop re-reads `fd`, `wantsRead`
/// and `wantsWrite` of the handlers whose interest may have changed and tells the kernel only
/// what did, so a turn costs O(ready), not O(registered). It re-reads on its own:
/// - a handler just registered, and a handler after each of its own `handleEvents`;
/// - every handler after a turn that ran queued work (`execute`) or timers, which may touch any.
///
/// A handler whose interest changes any other way, from inside another handler's events (a
/// sender's completion on one connection writing the next request on another), calls
/// `EventLoop.interestMayHaveChanged(_:)`. One that closes its descriptor and opens another (a
/// connection trying the next address) calls `EventLoop.descriptorReplaced(_:)`: the new one may
/// reuse the old number, which a comparison of numbers cannot see. Only a change that turns
/// interest on must be reported: one that turns it off at worst brings one more event, and that
/// event marks the handler for re-reading.
protocol PollHandler: AnyObject {
    var fd: Int32 { get }
    var wantsRead: Bool { get }
    var wantsWrite: Bool { get }
    /// Called with poll(2)'s bits for what is ready (POLLIN, POLLOUT, POLLERR, POLLHUP), on
    /// every platform.
    func handleEvents(_ events: Int16)
}

/// One thread waiting for many sockets (epoll on Linux, poll(2) elsewhere) and running timers.
///
/// Why a thread of its own and not Swift concurrency: OpenSSL and nghttp2 objects are not
/// thread-safe, so every one of them is created, used and freed on this thread. Other threads
/// hand work over with `execute(_:)`, which appends to a lock-protected queue and writes to a
/// wake-up pipe so a sleeping wait returns at once. Results go back to async callers through
/// continuations resumed on this thread.
///
/// Cost of a turn: the work queued by other threads, O(log n) per timer that fires (a heap,
/// `TimerQueue`), and O(ready) for the wait, the dispatch and the interest updates (epoll
/// returns only ready descriptors; see `PollHandler` for when interest is re-read). A turn that
/// ran queued work or timers also compares every handler's interest (no system call unless it
/// changed), since that work may have touched any of them.
///
/// `@unchecked Sendable`, because this is the primitive the rest is confined to (as NIO's
/// `SelectableEventLoop`). Its state is in three groups:
/// - guarded by `lock`: `pending`, `running`, `liveConnections`;
/// - written once before `init` returns, then read-only: `wakeRead`, `wakeWrite`, `threadID`,
///   `thread`, `poller` (the object; its contents are loop-only);
/// - loop-thread only, checked with `preconditionInLoop()` at every entry point, in release
///   builds too: `poller`'s set, `registrations`, `byHandler`, `byToken`, `nextToken`, `dirty`,
///   `timers`, `readBuffer`'s bytes and `readBufferLent`; and `endOfTurn`, which only the
///   loop's own thread can reach (through the thread-local `atEndOfTurn` reads).
package final class EventLoop: @unchecked Sendable {
    /// A loop shared by everyone who does not need isolation (the CLI, tests).
    package static let shared = EventLoop(name: "transport.loop")

    // Guarded by `lock`.
    private let lock = NSLock()
    private var pending: [@Sendable () -> Void] = []
    private var running = true
    /// Connections (each owning a socket and an SSL*) that exist on this loop. Lets tests prove
    /// that closing clients and stopping servers frees everything.
    private var liveConnections = 0

    // Written before `init` returns.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Internal, not private: tests wait for `isFinished` to know the loop has stopped.
    private(set) var thread: Thread?
    /// Set by the loop thread before `init` returns, never again (see `init`).
    private var threadID: pthread_t?
    private let poller = EventPoller()

    // Loop-thread only. The registration books below are `@exclusivity(unchecked)`: a
    // connection marks itself dirty whenever its output goes from empty to not (once per
    // request on a connection with one stream at a time), and the runtime's check of each
    // access cost some 80 instructions; no access spans a call (the loops over them walk a
    // copy, so a handler asked for its interest may mark itself dirty again meanwhile).
    /// Every registered handler, in a dense array so the per-turn interest check walks memory
    /// in order; each `Registration` knows its index for O(1) removal.
    @exclusivity(unchecked) private var registrations: [Registration] = []
    @exclusivity(unchecked) private var byHandler: [ObjectIdentifier: Registration] = [:]
    /// Which registration a ready event belongs to. Tokens are never reused, so an event still
    /// pending for a handler deregistered earlier in the same turn finds nothing.
    @exclusivity(unchecked) private var byToken: [UInt64: Registration] = [:]
    private var nextToken: UInt64 = 1
    /// Registrations whose interest is re-read before the next wait (see `PollHandler`).
    @exclusivity(unchecked) private var dirty: [Registration] = []
    /// Set by a turn that ran queued work or timers: every registration is re-read.
    @exclusivity(unchecked) private var recheckAll = false
    private var timers = TimerQueue<() -> Void>()
    /// Work for the end of the turn in progress (`atEndOfTurn`).
    private var endOfTurn: [() -> Void] = []
    /// What every connection of this loop decrypts into (`withReadBuffer`): a read is handed
    /// on before the next one starts, so one buffer serves where each connection held 64 KiB
    /// of its own (32 MiB at 500 connections), and each read lands in memory the last warmed.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: EventLoop.readBufferSize, alignment: 16)
    /// True while `readBuffer` is lent out.
    private var readBufferLent = false
    static let readBufferSize = 64 * 1024

    /// The wake-up pipe's token in the poller (handlers get 1 and up).
    private static let wakeToken: UInt64 = 0

    package init(name: String = "transport.loop") {
        var fds: [Int32] = [0, 0]
        let rc = pipe(&fds)
        precondition(rc == 0, "The event loop could not create its wake-up pipe (errno \(errno)).")
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        // Before the thread starts (which orders it before everything the thread does).
        poller.watch(fd: wakeRead, token: Self.wakeToken, interest: PollInterest(read: true, write: false), isNew: true)
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [unowned self] in
            Self.blockSIGPIPE()
            self.threadID = pthread_self()
            // Unretained, like `self` in this closure: the thread runs within the loop's lifetime.
            shim_set_current_loop(Unmanaged.passUnretained(self).toOpaque())
            started.signal()
            self.run()
            shim_set_current_loop(nil)
        }
        thread.name = name
        self.thread = thread
        thread.start()
        // `threadID` is written once, before `init` returns: the semaphore orders that write
        // before every later read of `inLoop` on any thread, so it needs no lock.
        started.wait()
    }

    /// The wake-up pipe is closed here, not when the thread ends: other threads may still call
    /// `execute` or `shutdown` after the loop stopped (a server's deinit stops it on its loop),
    /// and both write to `wakeWrite`. Closed at the end of `run()`, that number could by then
    /// be another descriptor of the process (a connection's socket, a pipe, a file), which
    /// would get a stray byte; nobody can call `execute` once the loop object itself is gone.
    /// The write end stays writable meanwhile (non-blocking, and its reader is still open, so
    /// no EPIPE): a late wake-up fills a pipe nobody reads, at most 64 KiB, then gets EAGAIN.
    deinit {
        close(wakeWrite)
        close(wakeRead)
        readBuffer.deallocate()
    }

    /// Lends the loop's read buffer to `body`, which must be done with its bytes when it
    /// returns. A read inside another read (none is made today: reads start from the loop's
    /// events and timers) gets a buffer of its own rather than overwrite the outer one's bytes.
    func withReadBuffer<Result>(_ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        preconditionInLoop()
        if readBufferLent {
            let own = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 16)
            defer { own.deallocate() }
            return body(own)
        }
        readBufferLent = true
        defer { readBufferLent = false }
        return body(readBuffer)
    }

    /// OpenSSL writes to sockets with write(2), which raises SIGPIPE when the peer has gone,
    /// and the default action kills the process. Every socket write of this library happens on
    /// a loop thread, so blocking the signal there (SIGPIPE from write(2) is sent to the
    /// writing thread) turns it into EPIPE without touching the process-wide disposition a
    /// host application may rely on. The signal stays pending on this thread, harmlessly.
    private static func blockSIGPIPE() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Stops the loop thread after the work already queued. Handlers still registered are
    /// dropped (their deinit frees their C objects).
    package func shutdown() {
        lock.lock(); running = false; lock.unlock()
        wake()
    }

    /// Runs `work` on the loop thread, soon.
    ///
    /// Only the first item queued since the loop last took the queue writes to the wake-up
    /// pipe: the loop takes every queued item at once, so one wake-up covers them all, and a
    /// batch of 100,000 requests costs one syscall per loop turn instead of one per request.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        let wasEmpty = pending.isEmpty
        pending.append(work)
        lock.unlock()
        if wasEmpty { wake() }
    }

    /// How many `Connection` objects (and so SSL objects and sockets) are alive on this loop.
    package var liveConnectionCount: Int {
        lock.lock(); defer { lock.unlock() }
        return liveConnections
    }

    func connectionCreated() { lock.lock(); liveConnections += 1; lock.unlock() }
    func connectionFreed() { lock.lock(); liveConnections -= 1; lock.unlock() }

    /// Whether the caller is on this loop's thread: one load and one comparison with
    /// `pthread_self()` (a read of the thread pointer), cheap enough to run on every access
    /// (`preconditionInLoop`, `LoopBound`).
    @inline(__always)
    package var inLoop: Bool {
        // `pthread_t` is an integer on Linux and a pointer on Darwin; both compare with `==`,
        // which is all `pthread_equal` does on either.
        threadID == pthread_self()
    }

    /// Whether the calling thread is some event loop's (this or another): where
    /// `atEndOfTurn` can keep work.
    package static var onLoopThread: Bool { shim_current_loop() != nil }

    /// Runs `work` on the calling thread's event loop once the turn in progress is over: after
    /// its ready events, queued work and due timers are handled, before the loop next waits.
    /// Returns false, keeping nothing, when the calling thread is no loop's: the caller then
    /// does the work itself.
    ///
    /// Why: some work is cheaper in stretches. Resuming a waiting task hands a job to the
    /// concurrency pool, and a job that finds the pool idle wakes a thread (a futex call and
    /// a context switch, which on a small machine also takes the core from the loop). A turn
    /// that reads a hundred answers and resumes their senders one by one, between the
    /// answers, wakes the pool for nearly each; resumed together at the end of the turn, they
    /// find it awake (docs/benchmarks.md, the library path).
    package static func atEndOfTurn(_ work: @escaping () -> Void) -> Bool {
        guard let current = shim_current_loop() else { return false }
        // The thread-local is set only on the loop's own thread, so this is loop-confined.
        Unmanaged<EventLoop>.fromOpaque(current).takeUnretainedValue().endOfTurn.append(work)
        return true
    }

    /// Stops the process, in release builds too, when called off this loop's thread.
    ///
    /// Everything loop-confined calls it at its entry points: this loop's registration and
    /// timer calls, the transport's `Connection` and `HTTP2Session`, and every `LoopBound`
    /// access. A wrong thread there would corrupt OpenSSL or nghttp2 state silently (neither
    /// is thread-safe), which is worse than a crash that names the place; the check is one
    /// comparison (`inLoop`), measured at no visible cost on the push benchmark
    /// (docs/benchmarks.md).
    @inline(__always)
    package func preconditionInLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inLoop, "Called off its event loop's thread; this state belongs to the loop (hand the work over with execute).",
                     file: file, line: line)
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: loop-thread API

    /// Starts polling `handler` (its interest is read before the next wait). Registering a
    /// registered handler changes nothing.
    func register(_ handler: PollHandler) {
        preconditionInLoop()
        let key = ObjectIdentifier(handler)
        guard byHandler[key] == nil else { return }
        let registration = Registration(handler: handler, token: nextToken, index: registrations.count)
        nextToken += 1
        registrations.append(registration)
        byHandler[key] = registration
        byToken[registration.token] = registration
        markDirty(registration)
    }

    /// Stops polling `handler`; events already reported for it in this turn are dropped.
    func deregister(_ handler: PollHandler) {
        preconditionInLoop()
        guard let registration = byHandler.removeValue(forKey: ObjectIdentifier(handler)) else { return }
        byToken[registration.token] = nil
        registration.isRegistered = false
        // The descriptor is still the handler's own (open) only while it is the one watched;
        // a closed one already left the set, and its number may belong to someone else now.
        if registration.fd >= 0, handler.fd == registration.fd {
            poller.unwatch(fd: registration.fd, token: registration.token)
        }
        let last = registrations.removeLast()
        if last !== registration {
            registrations[registration.index] = last
            last.index = registration.index
        }
    }

    /// `handler` closed its descriptor and opened another (possibly under the same number):
    /// the new one is watched from the next wait on.
    func descriptorReplaced(_ handler: PollHandler) {
        preconditionInLoop()
        guard let registration = byHandler[ObjectIdentifier(handler)] else { return }
        registration.fd = -1
        markDirty(registration)
    }

    /// `handler`'s `wantsRead` or `wantsWrite` may have changed outside its own events and
    /// outside queued work and timers (see `PollHandler`): it is re-read before the next wait.
    /// Costs a dictionary lookup; calling it when nothing changed is harmless.
    func interestMayHaveChanged(_ handler: PollHandler) {
        preconditionInLoop()
        if let registration = byHandler[ObjectIdentifier(handler)] { markDirty(registration) }
    }

    private func markDirty(_ registration: Registration) {
        guard !registration.isDirty else { return }
        registration.isDirty = true
        dirty.append(registration)
    }

    /// Runs `work` on the loop thread after `seconds`; returns an id for `cancelTimer`.
    @discardableResult
    func schedule(after seconds: Double, _ work: @escaping () -> Void) -> UInt64 {
        preconditionInLoop()
        return timers.schedule(at: Self.nowMillis() + TimerSeconds.milliseconds(seconds), work)
    }

    func cancelTimer(_ id: UInt64?) {
        preconditionInLoop()
        if let id { timers.cancel(id) }
    }

    static func nowMillis() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }

    private func run() {
        while true {
            // In a function of its own so the closures (and the connections they hold) are
            // released before the wait blocks, not at the end of this iteration.
            let (ranWork, stillRunning) = runPending()
            if !stillRunning && !ranWork { break }
            let firedTimers = runDueTimers()
            let ranEndOfTurn = runEndOfTurn()
            if ranWork || firedTimers || ranEndOfTurn { recheckAll = true }
            updateInterest()
            poller.wait(timeoutMillis: waitTimeout()) { token, events in
                if token == Self.wakeToken {
                    drainWakeUps()
                } else if let registration = byToken[token] {
                    // Absent when a handler earlier in this batch closed it.
                    registration.handler.handleEvents(events)
                    if registration.isRegistered { markDirty(registration) }
                }
            }
        }
        _ = runEndOfTurn()
        registrations.removeAll()
        dirty.removeAll()
        byHandler.removeAll()
        byToken.removeAll()
        timers.removeAll()
        // The wake-up pipe stays open until deinit (see there).
    }

    /// Tells the poller what changed since the last turn for the dirty registrations (or all,
    /// after queued work or timers): a handler's new descriptor, or a new read/write interest.
    /// Reading the properties costs no system call.
    private func updateInterest() {
        if recheckAll {
            for registration in registrations { refreshInterest(registration) }
        }
        for registration in dirty {
            registration.isDirty = false
            if !recheckAll, registration.isRegistered { refreshInterest(registration) }
        }
        dirty.removeAll(keepingCapacity: true)
        recheckAll = false
    }

    private func refreshInterest(_ registration: Registration) {
        let handler = registration.handler
        let fd = handler.fd
        let interest = PollInterest(read: handler.wantsRead, write: handler.wantsWrite)
        if fd != registration.fd {
            // The old descriptor was closed (which took it out of the set) or never watched.
            if fd >= 0 { poller.watch(fd: fd, token: registration.token, interest: interest, isNew: true) }
            registration.fd = fd
            registration.interest = interest
        } else if fd >= 0, interest != registration.interest {
            poller.watch(fd: fd, token: registration.token, interest: interest, isNew: false)
            registration.interest = interest
        }
    }

    /// Milliseconds until the next timer (at most a minute), or -1 with none.
    private func waitTimeout() -> Int32 {
        guard let next = timers.nextDeadline() else { return -1 }
        let now = Self.nowMillis()
        return next <= now ? 0 : Int32(min(next - now, 60_000))
    }

    private func drainWakeUps() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    /// Runs the work other threads queued; returns whether there was any and whether the loop
    /// should keep running.
    private func runPending() -> (Bool, Bool) {
        lock.lock()
        let work = pending
        pending.removeAll(keepingCapacity: true)
        let stillRunning = running
        lock.unlock()
        for item in work { item() }
        return (!work.isEmpty, stillRunning)
    }

    /// Runs the work handed to `atEndOfTurn`, and what that work hands over in turn, until
    /// none is left (the loop must not wait while some is). Returns whether any ran.
    private func runEndOfTurn() -> Bool {
        guard !endOfTurn.isEmpty else { return false }
        while !endOfTurn.isEmpty {
            let work = endOfTurn
            endOfTurn = []
            for item in work { item() }
        }
        return true
    }

    /// Runs every timer due now, earliest first; timers they schedule wait for the next turn.
    /// Returns whether any ran.
    private func runDueTimers() -> Bool {
        guard !timers.isEmpty else { return false }
        let now = Self.nowMillis()
        let limit = timers.nextID
        var ran = false
        while let work = timers.popDue(now: now, scheduledBefore: limit) {
            work()
            ran = true
        }
        return ran
    }
}

/// One handler's place on the loop: what the poller was last told about it.
private final class Registration {
    let handler: PollHandler
    let token: UInt64
    /// Position in `EventLoop.registrations`.
    var index: Int
    /// The descriptor the poller watches for this handler (-1: none yet).
    var fd: Int32 = -1
    var interest = PollInterest(read: false, write: false)
    /// In `EventLoop.dirty` (at most once).
    var isDirty = false
    /// False once deregistered: a stale entry in `dirty` or a batch is then skipped.
    var isRegistered = true

    init(handler: PollHandler, token: UInt64, index: Int) {
        self.handler = handler
        self.token = token
        self.index = index
    }
}
