import Foundation

/// How many connections a server (or several: the mock gateway's three ports share one) keeps
/// open at once.
///
/// Why: every open connection holds a file descriptor, an `SSL*`, a read buffer and an
/// nghttp2 session, so a client that opens connections without end would otherwise run the
/// process out of descriptors or memory. A connection beyond the limit is accepted and closed
/// at once (the client sees the connection closed during the TLS handshake, instead of
/// hanging in the listen queue), and a log line says so, at most one a second.
///
/// Slots are taken on the loop thread and given back by `Slot.deinit`, which runs wherever
/// the last reference to a socket goes (a task may hold a connection), hence the lock.
public final class ConnectionLimit: @unchecked Sendable {
    public let maximum: Int
    /// Ends the refusal line: what to change to allow more (the mock says `--max-connections`).
    private let hint: String
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var open = 0
    // Loop-thread-only: the refusal log's rate limit.
    private var refusedSinceLine = 0
    private var lastLine: UInt64 = 0

    public init(maximum: Int, hint: String = "", log: @escaping @Sendable (String) -> Void) {
        self.maximum = maximum
        self.hint = hint
        self.log = log
    }

    /// Held by an admitted socket; its deinit (the socket closed) frees the slot.
    final class Slot {
        private let limit: ConnectionLimit
        init(_ limit: ConnectionLimit) { self.limit = limit }
        deinit { limit.lock.withLock { limit.open -= 1 } }
    }

    /// Gives `socket` a slot, or refuses it (the caller drops it, which closes it). Loop thread.
    func admit(_ socket: Socket, peer: String, port: Int) -> Bool {
        let admitted = lock.withLock {
            guard open < maximum else { return false }
            open += 1
            return true
        }
        if admitted {
            socket.slot = Slot(self)
            return true
        }
        refusedSinceLine += 1
        let now = EventLoop.nowMillis()
        if lastLine == 0 || now - lastLine >= 1000 {
            let others = refusedSinceLine > 1 ? " (and \(refusedSinceLine - 1) more since the last such line)" : ""
            log("refused a connection from \(peer) on port \(port)\(others): \(maximum) connections are open, the limit\(hint.isEmpty ? "" : "; \(hint)").")
            refusedSinceLine = 0
            lastLine = now
        }
        return false
    }
}
