import Foundation

/// Task cancellation for calls that wait on the network: the transport's `connect` and `send`
/// resume only when the peer answers or their timeout fires, and know nothing of tasks. `run`
/// returns the call's result, or throws `CancellationError` as soon as the calling task is
/// cancelled; the call itself goes on in a task of its own until its timeout, and a result
/// that arrives after the cancellation goes to `discard` (to close a connection nobody uses).
enum Cancellable {
    static func run<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T,
                                 discard: @escaping @Sendable (T) -> Void = { _ in }) async throws -> T {
        let once = ResumeOnce<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                once.attach(continuation)
                Task {
                    let result: Result<T, Error>
                    do { result = .success(try await operation()) } catch { result = .failure(error) }
                    if !once.resume(with: result), case .success(let late) = result { discard(late) }
                }
            }
        } onCancel: {
            once.resume(with: .failure(CancellationError()))
        }
    }
}

/// Resumes a continuation exactly once with whichever outcome comes first: the operation's or
/// the cancellation's. An outcome that comes before the continuation is attached (a task
/// cancelled before it started) is kept and delivered on `attach`.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Error>?
    private var early: Result<T, Error>?
    private var settled = false

    func attach(_ continuation: CheckedContinuation<T, Error>) {
        lock.lock()
        if let early {
            settled = true
            lock.unlock()
            continuation.resume(with: early)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    /// False when an outcome was already taken (this one is not delivered).
    @discardableResult
    func resume(with result: Result<T, Error>) -> Bool {
        lock.lock()
        guard !settled, early == nil else {
            lock.unlock()
            return false
        }
        guard let continuation else {
            early = result
            lock.unlock()
            return true
        }
        settled = true
        self.continuation = nil
        lock.unlock()
        continuation.resume(with: result)
        return true
    }
}
