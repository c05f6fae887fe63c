import Foundation

/// SIGINT and SIGTERM as an event a command can act on: stop what it is doing, write what it
/// has, print its summary and exit 128 + the signal (130, 143), so "every result written"
/// holds for an interrupted run too. A second signal ends the process at once with the same
/// code: whatever was already handed to the kernel (record lines, outputs linked in whole by
/// `SecureFileWriter`) stays as it is.
final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    private var signalNumber: Int32?
    private var actions: [@Sendable (Int32) -> Void] = []
    private var sources: [DispatchSourceSignal] = []

    /// Takes over SIGINT and SIGTERM for the rest of the process.
    static func install() -> Interruption {
        let interruption = Interruption()
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { interruption.received(number) }
            source.resume()
            interruption.sources.append(source)
        }
        return interruption
    }

    /// The first signal received, or nil.
    var signal: Int32? { lock.withLock { signalNumber } }

    /// The exit status for the signal received (130 for SIGINT, 143 for SIGTERM), or nil.
    var exitStatus: Int32? { signal.map { 128 + $0 } }

    /// "SIGINT" or "SIGTERM", for the summary line.
    var signalName: String { signal == SIGINT ? "SIGINT" : "SIGTERM" }

    /// Runs `action` when the first signal arrives, or now if it already has.
    func onSignal(_ action: @escaping @Sendable (Int32) -> Void) {
        let already: Int32? = lock.withLock {
            if signalNumber == nil { actions.append(action) }
            return signalNumber
        }
        if let already { action(already) }
    }

    /// Suspends until the first signal; returns its number.
    func wait() async -> Int32 {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        onSignal { number in
            continuation.yield(number)
            continuation.finish()
        }
        for await number in stream { return number }
        return SIGTERM
    }

    private func received(_ number: Int32) {
        let pending: [@Sendable (Int32) -> Void]? = lock.withLock {
            guard signalNumber == nil else { return nil }
            signalNumber = number
            defer { actions.removeAll() }
            return actions
        }
        guard let pending else {
            // The second signal: the operator wants out now.
            _exit(128 + number)
        }
        for action in pending { action(number) }
    }
}
