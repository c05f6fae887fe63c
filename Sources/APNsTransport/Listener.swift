// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on the loop: accepts every pending connection and hands each to
/// `onAccept`. Owns the listening `Socket`.
///
/// When accept() fails for want of resources (EMFILE: the process is at `ulimit -n`; ENFILE,
/// ENOBUFS, ENOMEM), the pending connection stays queued and the socket stays readable, so
/// polling it again at once would spin the loop at full CPU. The listener stops asking for
/// reads for `retryDelay` instead, says so once, and says so again when accepting resumes.
///
/// Not `Sendable`: made off the loop by its server's `start` and handed over whole
/// (`LoopBound(handingOver:)`); loop thread only from then on (`handleEvents` checks it).
final class Listener: PollHandler {
    let socket: Socket
    let port: Int
    var onAccept: ((Socket, String) -> Void)?
    private let loop: EventLoop
    private let limit: ConnectionLimit?
    private let log: @Sendable (String) -> Void
    private var paused = false
    private var starved = false
    static let retryDelay = 0.1

    init(socket: Socket, port: Int, loop: EventLoop, limit: ConnectionLimit? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.socket = socket
        self.port = port
        self.loop = loop
        self.limit = limit
        self.log = log
    }

    var fd: Int32 { socket.fd }
    var wantsRead: Bool { onAccept != nil && !paused }
    var wantsWrite: Bool { false }

    func handleEvents(_ events: Int16) {
        loop.preconditionInLoop()
        while onAccept != nil {
            switch socket.accept() {
            case .accepted(let client, let peer):
                if starved {
                    starved = false
                    log("accepting connections on port \(port) again.")
                }
                if let limit, !limit.admit(client, peer: peer, port: port) { continue }
                onAccept?(client, peer)
            case .wouldBlock:
                return
            case .retry:
                continue
            case .failed(let code):
                if !starved {
                    starved = true
                    let why = String(cString: strerror(code)).lowercased() + (code == EMFILE ? " (ulimit -n is \(OpenFileLimit.current))" : "")
                    log("cannot accept connections on port \(port): \(why); new connections wait until open ones close.")
                }
                paused = true
                loop.schedule(after: Self.retryDelay) { [weak self] in self?.paused = false }
                return
            }
        }
    }
}
