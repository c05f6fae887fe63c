import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Something the event loop polls: a socket and what to do when it is ready.
///
/// Handlers live on the loop thread only; the loop asks each one what it wants before every
/// `poll()` so interest never goes stale.
protocol PollHandler: AnyObject {
    var fd: Int32 { get }
    var wantsRead: Bool { get }
    var wantsWrite: Bool { get }
    /// Called with the `revents` poll reported (POLLIN, POLLOUT, POLLERR, POLLHUP).
    func handleEvents(_ events: Int16)
}

/// One thread running `poll()` over many sockets.
///
/// Why a thread of its own and not Swift concurrency: OpenSSL and nghttp2 objects are not
/// thread-safe, so every one of them is created, used and freed on this thread. Other threads
/// hand work over with `execute(_:)`, which appends to a lock-protected queue and writes to a
/// wake-up fd (eventfd/pipe) so a sleeping `poll()` returns at once. Results go back to async
/// callers through continuations resumed on this thread.
///
/// `@unchecked Sendable`: the mutable state is either guarded by `lock` (`pending`,
/// `running`) or touched only on the loop thread (`handlers`, `timers`).
package final class EventLoop: @unchecked Sendable {
    /// A loop shared by everyone who does not need isolation (the CLI, tests).
    package static let shared = EventLoop(name: "transport.loop")

    private let lock = NSLock()
    private var pending: [@Sendable () -> Void] = []
    private var running = true
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var thread: Thread?
    /// Set by the loop thread before `init` returns, never again (see `init`).
    private var threadID: pthread_t?

    /// Connections (each owning a socket and an SSL*) that exist on this loop. Lets tests prove
    /// that closing clients and stopping servers frees everything. Guarded by `lock`.
    private var liveConnections = 0

    // Loop-thread-only state.
    private var handlers: [ObjectIdentifier: PollHandler] = [:]
    private var timers: [UInt64: (deadline: UInt64, work: () -> Void)] = [:]
    private var nextTimerID: UInt64 = 1

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
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [unowned self] in
            Self.blockSIGPIPE()
            self.threadID = pthread_self()
            started.signal()
            self.run()
        }
        thread.name = name
        self.thread = thread
        thread.start()
        // `threadID` is written once, before `init` returns: the semaphore orders that write
        // before every later read of `inLoop` on any thread, so it needs no lock.
        started.wait()
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

    /// Whether the caller is on this loop's thread.
    var inLoop: Bool {
        guard let threadID else { return false }
        return pthread_equal(threadID, pthread_self()) != 0
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: loop-thread API

    func register(_ handler: PollHandler) {
        handlers[ObjectIdentifier(handler)] = handler
    }

    func deregister(_ handler: PollHandler) {
        handlers[ObjectIdentifier(handler)] = nil
    }

    /// Runs `work` on the loop thread after `seconds`; returns an id for `cancelTimer`.
    @discardableResult
    func schedule(after seconds: Double, _ work: @escaping () -> Void) -> UInt64 {
        let id = nextTimerID
        nextTimerID += 1
        timers[id] = (Self.nowMillis() + UInt64(max(0, seconds) * 1000), work)
        return id
    }

    func cancelTimer(_ id: UInt64?) {
        if let id { timers[id] = nil }
    }

    static func nowMillis() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }

    private func run() {
        var fds: [pollfd] = []
        var order: [PollHandler] = []
        while true {
            // In a function of its own so the closures (and the connections they hold) are
            // released before poll() blocks, not at the end of this iteration.
            let (ranWork, stillRunning) = runPending()
            if !stillRunning && !ranWork { break }
            runDueTimers()

            fds.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for handler in handlers.values {
                var events: Int16 = 0
                if handler.wantsRead { events |= Int16(POLLIN) }
                if handler.wantsWrite { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: handler.fd, events: events, revents: 0))
                order.append(handler)
            }
            var timeout: Int32 = -1
            if let next = timers.values.map(\.deadline).min() {
                let now = Self.nowMillis()
                timeout = next <= now ? 0 : Int32(min(next - now, 60_000))
            }
            let count = poll(&fds, nfds_t(fds.count), timeout)
            if count < 0 { continue }  // EINTR
            if fds[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 256)
                while read(wakeRead, &buffer, buffer.count) > 0 {}
            }
            for index in order.indices where fds[index + 1].revents != 0 {
                let handler = order[index]
                // A handler closed by an earlier one in this round is skipped.
                guard handlers[ObjectIdentifier(handler)] != nil else { continue }
                handler.handleEvents(fds[index + 1].revents)
            }
        }
        handlers.removeAll()
        timers.removeAll()
        // The write end first: a late `execute` then gets EBADF, never EPIPE on a pipe without
        // a reader.
        close(wakeWrite)
        close(wakeRead)
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

    private func runDueTimers() {
        guard !timers.isEmpty else { return }
        let now = Self.nowMillis()
        guard timers.values.contains(where: { $0.deadline <= now }) else { return }
        let due = timers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
        for (id, timer) in due {
            timers[id] = nil
            timer.work()
        }
    }
}
