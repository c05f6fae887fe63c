import Foundation

/// When to test a quiet client connection with a PING, and how long to wait for the answer.
///
/// Servers (and the NAT boxes and load balancers on the way) drop connections that stay idle, and
/// not always with a GOAWAY or a FIN: a socket can die silently, and the next request would
/// then wait for its deadline and be counted as possibly delivered twice. Pinging a connection
/// that has been quiet for `idleInterval` seconds finds that out beforehand; a PING not
/// acknowledged within `timeout` seconds closes the connection, so the next send reconnects
/// at once. The sender's reasons are in the protocol notes (docs/, §1).
package struct HTTP2HealthCheck: Sendable, Equatable {
    package var idleInterval: Double
    package var timeout: Double

    package init(idleInterval: Double = 60, timeout: Double = 10) {
        self.idleInterval = idleInterval
        self.timeout = timeout
    }
}

extension HTTP2Session {
    /// Starts the idle health check (client side; loop thread). It rearms itself until the
    /// connection closes.
    func startHealthCheck(_ check: HTTP2HealthCheck) {
        guard check.idleInterval > 0, !closed else { return }
        let loop = connection.loop
        let quietFor = Double(EventLoop.nowMillis() &- lastInputMillis) / 1000
        healthTimer = loop.schedule(after: max(0.001, check.idleInterval - quietFor)) { [weak self] in
            self?.healthTimer = nil
            self?.checkHealth(check)
        }
    }

    private func checkHealth(_ check: HTTP2HealthCheck) {
        guard !closed else { return }
        let quietFor = Double(EventLoop.nowMillis() &- lastInputMillis) / 1000
        guard quietFor >= check.idleInterval else {
            startHealthCheck(check)
            return
        }
        let answered = PingAnswer()
        let loop = connection.loop
        let timer = loop.schedule(after: check.timeout) { [weak self] in
            guard let self, !answered.value, !self.closed else { return }
            let peer = self.connection.host ?? self.connection.remoteAddress
            self.connection.fail(TransportError(.timeout, "\(peer) did not answer a PING within \(Self.seconds(check.timeout)) after \(Self.seconds(check.idleInterval)) of silence: the connection is dead."))
        }
        ping { [weak self] result in
            answered.value = true
            loop.cancelTimer(timer)
            if case .success = result { self?.startHealthCheck(check) }
        }
    }
}

/// Whether a health-check PING was answered (loop thread only).
private final class PingAnswer {
    var value = false
}
