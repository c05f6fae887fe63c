import Foundation

/// SIGINT and SIGTERM during a long command (`push` with many tokens): the first signal asks
/// the work to stop gracefully (stop reading input, let what is in flight finish, write every
/// result), the second to stop at once (still writing what is known). The command then exits
/// 128 + the first signal's number (130 for SIGINT, 143 for SIGTERM), as shells expect.
final class Interruption: @unchecked Sendable {
    // @unchecked: `received`, `count` and the handlers only under `lock`; the sources are
    // set once in `init` and only kept alive.
    private let lock = NSLock()
    private var count = 0
    private var first: Int32?
    private var onFirst: (@Sendable () -> Void)?
    private var onSecond: (@Sendable () -> Void)?
    private var sources: [DispatchSourceSignal] = []

    /// Starts watching: from now on SIGINT and SIGTERM no longer end the process by default.
    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// What to do on the first signal and on the second. A signal that came before this call
    /// runs its handler at once.
    func handle(first: @escaping @Sendable () -> Void, second: @escaping @Sendable () -> Void) {
        let pending: Int = lock.withLock {
            onFirst = first
            onSecond = second
            return count
        }
        if pending >= 1 { first() }
        if pending >= 2 { second() }
    }

    /// The first signal's number, once one came.
    var signalNumber: Int32? { lock.withLock { first } }

    /// The exit status for an interrupted command: 128 + the signal's number.
    var exitStatus: Int32? { signalNumber.map { 128 + $0 } }

    private func received(_ number: Int32) {
        let handler: (@Sendable () -> Void)? = lock.withLock {
            count += 1
            if first == nil { first = number }
            switch count {
            case 1: return onFirst
            case 2: return onSecond
            default: return nil
            }
        }
        handler?()
    }

    /// Back to the default dispositions (the command is done with its work).
    func stopWatching() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
