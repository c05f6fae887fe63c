/// A fixed number of connection slots, each holding one live connection or reconnecting it.
///
/// Reconnects are single-flight per slot (many streams notice a dead connection at once, one
/// reconnect happens) and back off, because APNs treats rapid reconnects as an attack. After
/// `maximumReconnects` consecutive failures the gateway is declared unreachable and every
/// caller fails fast with the same reason, so a batch of a million does not retry a million
/// times against a closed port.
actor ConnectionPool {
    private struct Slot {
        var connection: (any ProviderConnection)?
        var connecting: Task<Result<any ProviderConnection, ProviderSendError>, Never>?
        /// Numbers connection attempts, so that of all the callers waiting on one attempt
        /// exactly one does its bookkeeping.
        var attempt = 0
    }

    private let connector: any ProviderConnector
    private let policy: RetryPolicy
    private var slots: [Slot]
    private var consecutiveFailures = 0
    private(set) var unreachable: String?
    /// Connection attempts, failed ones included, and the slots that made any: every attempt
    /// after a slot's first is a reconnect, whether or not it got through (in a TLS black hole
    /// none does, and the summary must still say how often we tried).
    private var attemptCount = 0
    private var slotsAttempted: Set<Int> = []
    var reconnectCount: Int { attemptCount - slotsAttempted.count }

    init(connector: any ProviderConnector, size: Int, policy: RetryPolicy) {
        self.connector = connector
        self.policy = policy
        slots = Array(repeating: Slot(), count: max(1, size))
    }

    var size: Int { slots.count }

    /// The live connection of `slot`, connecting (or reconnecting) if needed.
    func connection(slot: Int) async throws(ProviderSendError) -> any ProviderConnection {
        while true {
            if let unreachable { throw .cannotConnect(unreachable) }
            if let connection = slots[slot].connection, connection.isUsable { return connection }
            let task: Task<Result<any ProviderConnection, ProviderSendError>, Never>
            let attempt: Int
            if let pending = slots[slot].connecting {
                task = pending
                attempt = slots[slot].attempt
            } else {
                slots[slot].connection = nil
                let connector = self.connector
                let delay = consecutiveFailures == 0 ? 0 : policy.delay(afterAttempt: consecutiveFailures)
                task = Task { () -> Result<any ProviderConnection, ProviderSendError> in
                    if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
                    do throws(ProviderSendError) {
                        return .success(try await connector.connect())
                    } catch {
                        return .failure(error)
                    }
                }
                slots[slot].connecting = task
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
                    slots[slot].connection = connection
                case .failure(let error):
                    consecutiveFailures += 1
                    if consecutiveFailures > policy.maximumReconnects { unreachable = Self.describe(error) }
                }
            }
            if case .success(let connection) = result, connection.isUsable { return connection }
        }
    }

    /// Drops `connection` from its slot if it is still there.
    func discard(_ connection: any ProviderConnection, slot: Int) {
        if let current = slots[slot].connection, current === connection {
            slots[slot].connection = nil
            connection.close()
        }
    }

    func closeAll() {
        for index in slots.indices {
            slots[index].connection?.close()
            slots[index].connection = nil
        }
    }

    private static func describe(_ error: ProviderSendError) -> String {
        switch error {
        case .cannotConnect(let why), .connectionLost(let why), .notProcessed(let why): return why
        }
    }
}
