// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Foundation

/// A fixed number of connection slots, each holding one live connection or reconnecting it.
///
/// Reconnects are single-flight per slot (many streams notice a dead connection at once, one
/// reconnect happens) and back off, because APNs treats rapid reconnects as an attack. After
/// `maximumReconnects` consecutive failures the gateway counts as down: every caller fails
/// fast with the last reason (a batch of a million does not retry a million times against a
/// closed port) until the outage back-off has passed; then the next caller tries again. Each
/// failed round doubles the back-off (with jitter) up to `maximumOutageDelay`, and one
/// successful connect ends the outage, so a process running for months survives a gateway or
/// network outage of any length without a restart.
actor ConnectionPool {
    private struct Slot {
        var connection: (any ProviderConnection)?
        var connecting: Task<Result<any ProviderConnection, ProviderSendError>, Never>?
        /// Numbers connection attempts, so that of all the callers waiting on one attempt
        /// exactly one does its bookkeeping.
        var attempt = 0
    }

    /// The gateway is considered down: why, and when the next connect may be tried.
    struct Outage: Sendable {
        var reason: String
        var retryAt: ContinuousClock.Instant
        /// Failed rounds since the last successful connect (drives the back-off).
        var rounds: Int
        /// The gateway refused the credentials (not a network problem).
        var credentialsRejected: Bool
    }

    private let connector: any ProviderConnector
    private let policy: APNsRetryPolicy
    private let observer: SenderObserver
    private var slots: [Slot]
    private var consecutiveFailures = 0
    /// Set by `closeAll`: the pool makes no new connection.
    private var closed = false
    static let closedSentence = "Not sent: the client was closed."

    private(set) var outage: Outage?
    private(set) var connectCount = 0
    /// Connection attempts, failed ones included, and the slots that made any: every attempt
    /// after a slot's first is a reconnect, whether or not it got through (in a TLS black hole
    /// none does, and the summary must still say how often we tried).
    private var attemptCount = 0
    private var slotsAttempted: Set<Int> = []
    /// When the attempt that began the current run of failures started (nil after a success):
    /// the outage's sentence says how long the run took, since each attempt alone is bounded
    /// by the connect timeout and a user who gave `--timeout 2` waited for all of them.
    private var failureRunStarted: ContinuousClock.Instant?
    var reconnectCount: Int { attemptCount - slotsAttempted.count }

    init(connector: any ProviderConnector, size: Int, policy: APNsRetryPolicy, observer: SenderObserver) {
        self.connector = connector
        self.policy = policy
        self.observer = observer
        slots = Array(repeating: Slot(), count: max(1, size))
        self.size = max(1, size)
    }

    /// `reason` with how many attempts in a row failed and how long they took in all, e.g.
    /// "... within 2 seconds (5 attempts in a row, 10.8 s in all)." (`push --timeout 2` once
    /// took 10.6 s and its message named one attempt).
    private func attemptsNamed(in reason: String) -> String {
        guard consecutiveFailures > 1 else { return reason }
        let elapsed = failureRunStarted.map { ContinuousClock.now - $0 } ?? .zero
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let text = "\(consecutiveFailures) attempts in a row, \(String(format: "%.1f", seconds)) s in all"
        return reason.hasSuffix(".") ? "\(reason.dropLast()) (\(text))." : "\(reason) (\(text))"
    }

    /// The number of slots; fixed at creation, so readable without the actor.
    nonisolated let size: Int

    /// Why the gateway is down right now, or nil.
    var unreachable: String? { outage?.reason }

    /// The live connection of `slot`, connecting (or reconnecting) if needed.
    func connection(slot: Int) async throws(ProviderSendError) -> any ProviderConnection {
        while true {
            if closed { throw .closed(Self.closedSentence) }
            if let connection = slots[slot].connection, connection.isUsable { return connection }
            let task: Task<Result<any ProviderConnection, ProviderSendError>, Never>
            let attempt: Int
            if let pending = slots[slot].connecting {
                task = pending
                attempt = slots[slot].attempt
            } else {
                if let outage, ContinuousClock.now < outage.retryAt {
                throw outage.credentialsRejected ? .credentialsRejected(outage.reason) : .cannotConnect(outage.reason)
            }
                slots[slot].connection = nil
                let connector = self.connector
                // During an outage the wait was the outage back-off; otherwise back off per failure.
                let delay = consecutiveFailures == 0 || outage != nil ? 0 : policy.delay(afterAttempt: consecutiveFailures, jitter: APNsRetryPolicy.randomJitter())
                task = Task { () -> Result<any ProviderConnection, ProviderSendError> in
                    if delay > 0 { try? await Task.sleep(nanoseconds: TimerSeconds.nanoseconds(delay)) }
                    // Cancelled by `closeAll` while it waited: no connect starts after a close.
                    if Task.isCancelled { return .failure(.closed(Self.closedSentence)) }
                    do throws(ProviderSendError) {
                        return .success(try await connector.connect(slot: slot))
                    } catch {
                        return .failure(error)
                    }
                }
                slots[slot].connecting = task
                if consecutiveFailures == 0, failureRunStarted == nil { failureRunStarted = .now }
                slots[slot].attempt += 1
                attemptCount += 1
                slotsAttempted.insert(slot)
                attempt = slots[slot].attempt
            }
            let result = await task.value
            if slots[slot].attempt == attempt, slots[slot].connecting != nil {
                slots[slot].connecting = nil
                switch result {
                case .success(let connection):
                    consecutiveFailures = 0
                    failureRunStarted = nil
                    observer.connected()
                    if outage != nil { observer.outageEnded() }
                    outage = nil
                    slots[slot].connection = connection
                case .failure(let error):
                    consecutiveFailures += 1
                    let reason = Self.describe(error)
                    observer.connectFailed(reason)
                    // A refusal of the credentials is final for now: reconnecting at once would
                    // only be refused again (and look like an attack).
                    let refused: Bool
                    if case .credentialsRejected = error { refused = true } else { refused = false }
                    if let current = outage {
                        outage = Outage(reason: reason, retryAt: ContinuousClock.now + backOff(round: current.rounds + 1),
                                        rounds: current.rounds + 1, credentialsRejected: refused)
                    } else if consecutiveFailures > policy.maximumReconnects || refused {
                        let wait = backOff(round: 1)
                        outage = Outage(reason: refused ? reason : attemptsNamed(in: reason), retryAt: ContinuousClock.now + wait, rounds: 1, credentialsRejected: refused)
                        observer.outageBegan(reason, retryIn: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
                    }
                }
            }
            if closed, case .success(let late) = result {
                // Connected while the pool was being closed: nobody will use it.
                slots[slot].connection = nil
                late.close()
                throw .closed(Self.closedSentence)
            }
            switch result {
            case .success(let connection) where connection.isUsable: return connection
            case .failure(let error) where outage != nil: throw error
            default: continue
            }
        }
    }

    /// The outage back-off after `round` failed rounds: doubling, capped, jittered.
    private func backOff(round: Int) -> Duration {
        .nanoseconds(Int64(TimerSeconds.nanoseconds(policy.outageBackOff(round: round))))
    }

    /// Drops `connection` from its slot if it is still there.
    func discard(_ connection: any ProviderConnection, slot: Int) {
        if let current = slots[slot].connection, current === connection {
            slots[slot].connection = nil
            connection.close()
        }
    }

    /// Closes every connection and makes no new one: later callers get `.closed`. Returns
    /// once every connection is gone (GOAWAY sent, in-flight requests answered or failed) and
    /// every connect in progress has ended (cancelled; one that got through anyway is closed
    /// too): after it, nothing of the pool runs, so a process may exit at once (issue 32: a
    /// connect still making its TLS context at exit crashed in OpenSSL's cleanup).
    func closeAll() async {
        closed = true
        var closing: [any ProviderConnection] = []
        var connecting: [Task<Result<any ProviderConnection, ProviderSendError>, Never>] = []
        for index in slots.indices {
            if let task = slots[index].connecting {
                task.cancel()
                connecting.append(task)
            }
            if let connection = slots[index].connection { closing.append(connection) }
            slots[index].connection = nil
        }
        await withDiscardingTaskGroup { group in
            for connection in closing { group.addTask { await connection.closeAndWait() } }
            for task in connecting {
                group.addTask {
                    if case .success(let late) = await task.value { await late.closeAndWait() }
                }
            }
        }
    }

    private static func describe(_ error: ProviderSendError) -> String { BatchSender.describe(error) }
}
