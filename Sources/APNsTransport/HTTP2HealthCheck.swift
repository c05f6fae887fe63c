// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
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
    /// connection closes; `state` decides each step.
    func startHealthCheck(_ check: HTTP2HealthCheck) {
        perform(state.healthCheckDelay(now: EventLoop.nowMillis(), idleInterval: check.idleInterval), check)
    }

    private func perform(_ action: HTTP2ConnectionStateMachine.HealthCheck, _ check: HTTP2HealthCheck) {
        let loop = connection.loop
        switch action {
        case .nothing:
            break
        case .checkAgain(let seconds):
            healthTimer = loop.schedule(after: seconds) { [weak self] in
                guard let self else { return }
                self.healthTimer = nil
                self.perform(self.state.healthTimerFired(now: EventLoop.nowMillis(), idleInterval: check.idleInterval), check)
            }
        case .sendPing:
            let timer = loop.schedule(after: check.timeout) { [weak self] in
                guard let self else { return }
                self.perform(self.state.healthPingTimedOut(), check)
            }
            ping { [weak self] result in
                loop.cancelTimer(timer)
                guard let self else { return }
                let answered: Bool
                if case .success = result { answered = true } else { answered = false }
                self.perform(self.state.healthPingEnded(answered: answered, now: EventLoop.nowMillis(), idleInterval: check.idleInterval), check)
            }
        case .closeAsDead:
            connection.fail(TransportError(.timeout, "\(peer) did not answer a PING within \(Self.seconds(check.timeout)) after \(Self.seconds(check.idleInterval)) of silence: the connection is dead."))
        }
    }
}
