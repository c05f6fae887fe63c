// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
internal import CShims
#endif

/// What a registration asks to hear about. Errors and hang-ups are always reported, as
/// poll(2) and epoll report them whatever was asked.
struct PollInterest: Equatable {
    var read: Bool
    var write: Bool
}

#if os(Linux)
/// The loop's readiness source on Linux: one level-triggered epoll set.
///
/// Why epoll: poll(2) copies every descriptor into the kernel and back on each call and the
/// kernel checks each one, so a turn cost O(registered); epoll keeps the set in the kernel and
/// `wait` returns only the ready ones. Level-triggered (not edge) because the handlers are
/// written for poll: a handler may leave input unread (back-pressure, a read budget) and
/// expects to hear again while it is there. Interest changes cost one `epoll_ctl` each; the
/// loop only asks for one when a handler's interest or descriptor changed.
///
/// Loop-thread only (not Sendable); events carry poll(2)'s bits (POLLIN, POLLOUT, POLLERR,
/// POLLHUP) so handlers read the same bits on every platform.
final class EventPoller {
    private let epoll: Int32
    private var events: [epoll_event]

    init(capacity: Int = 256) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(epoll >= 0, "The event loop could not create its epoll set (errno \(errno)).")
        events = Array(repeating: epoll_event(), count: capacity)
    }

    deinit { close(epoll) }

    /// Watches `fd` for `token`. `isNew`: `fd` is not in the set yet (first registration, or a
    /// descriptor that replaced a closed one: closing a descriptor removes it from the set).
    func watch(fd: Int32, token: UInt64, interest: PollInterest, isNew: Bool) {
        var event = epoll_event()
        event.events = (interest.read ? EPOLLIN.rawValue : 0) | (interest.write ? EPOLLOUT.rawValue : 0)
        event.data.u64 = token
        var rc = epoll_ctl(epoll, isNew ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
        // A modified descriptor that was closed and reopened under the same number is gone from
        // the set (ENOENT); an added one may be there already (EEXIST). Either way, the other call.
        if rc != 0, errno == ENOENT || errno == EEXIST {
            rc = epoll_ctl(epoll, errno == ENOENT ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
        }
    }

    /// Stops watching `fd` (still open: the caller owns it). Errors mean it was not watched.
    func unwatch(fd: Int32, token: UInt64) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event)
    }

    /// Waits up to `timeoutMillis` (-1: no limit) and calls `ready` with each ready token and
    /// its events. Nothing is called when the wait was interrupted (EINTR).
    func wait(timeoutMillis: Int32, _ ready: (UInt64, Int16) -> Void) {
        let count = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, Int32($0.count), timeoutMillis) }
        guard count > 0 else { return }
        for index in 0..<Int(count) {
            let event = events[index]
            ready(event.data.u64, Self.pollBits(event.events))
        }
        // A full batch: more may be ready than fit; a larger buffer serves the next turn in one call.
        if Int(count) == events.count, events.count < 4096 {
            events = Array(repeating: epoll_event(), count: events.count * 2)
        }
    }

    private static func pollBits(_ bits: UInt32) -> Int16 {
        var result: Int16 = 0
        if bits & EPOLLIN.rawValue != 0 { result |= Int16(POLLIN) }
        if bits & EPOLLOUT.rawValue != 0 { result |= Int16(POLLOUT) }
        if bits & EPOLLERR.rawValue != 0 { result |= Int16(POLLERR) }
        if bits & EPOLLHUP.rawValue != 0 { result |= Int16(POLLHUP) }
        return result
    }
}
#else
/// The loop's readiness source where there is no epoll: poll(2) over a descriptor table kept
/// between turns (kqueue would be the equivalent of the Linux poller; this fallback keeps the
/// package building and working on macOS, at O(registered) per turn).
final class EventPoller {
    private var watched: [UInt64: (fd: Int32, interest: PollInterest)] = [:]
    private var fds: [pollfd] = []
    private var tokens: [UInt64] = []

    init(capacity: Int = 256) {}

    func watch(fd: Int32, token: UInt64, interest: PollInterest, isNew: Bool) {
        watched[token] = (fd, interest)
    }

    func unwatch(fd: Int32, token: UInt64) {
        watched[token] = nil
    }

    func wait(timeoutMillis: Int32, _ ready: (UInt64, Int16) -> Void) {
        fds.removeAll(keepingCapacity: true)
        tokens.removeAll(keepingCapacity: true)
        for (token, entry) in watched {
            let events = Int16((entry.interest.read ? POLLIN : 0) | (entry.interest.write ? POLLOUT : 0))
            fds.append(pollfd(fd: entry.fd, events: events, revents: 0))
            tokens.append(token)
        }
        guard poll(&fds, nfds_t(fds.count), timeoutMillis) > 0 else { return }
        for index in fds.indices where fds[index].revents != 0 { ready(tokens[index], fds[index].revents) }
    }
}
#endif
