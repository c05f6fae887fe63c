// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Synchronized

/// What a batch's result handler (`APNsClient.send(contentsOf:onResult:)`) asks for next.
public enum APNsBatchControl: Sendable {
    /// Keep sending.
    case `continue`
    /// Take nothing more from the input: what was taken and not written ends
    /// `.cancelled(written: false)`, what is in flight gets its answer. The handler still
    /// receives every one of those results.
    case stop
}

extension APNsClient {
    /// Sends every notification `notifications` yields, as a batch (its own `concurrency`
    /// window per connection), and hands each one's result to `onResult` as it comes, in the
    /// calling task, one at a time. Returns once every notification taken from the input has
    /// had its result handed over: nothing taken is ever left unreported.
    ///
    /// Every notification pulled from `notifications` ends in exactly one call of `onResult`;
    /// the rest of the input is never pulled. So when the batch ends early the caller knows
    /// exactly what happened to each notification and where to resume:
    /// - `onResult` returns `.stop`: nothing more is pulled; the notifications pulled and not
    ///   yet written come back `.cancelled(written: false)`, those in flight with their answers.
    /// - The calling task is cancelled: the same, and in-flight requests are given up at once
    ///   (`.cancelled(written: true)` if they went out, so APNs may have them).
    ///
    /// The input is read ahead of the results `onResult` has received by at most
    /// `APNsClient.batchReadAhead(concurrency:connections:)` notifications (back-pressure:
    /// a slow `onResult` slows the reading). If the input sequence throws, every result of
    /// what it yielded is handed over first, then this rethrows its error, typed as the
    /// sequence's `Failure` (a sequence that cannot fail makes this a call that cannot throw).
    ///
    /// ```swift
    /// let summary = try await client.send(contentsOf: notifications) { result in
    ///     if !result.isDelivered { log(result) }
    ///     return .continue
    /// }
    /// ```
    @discardableResult
    public func send<Notifications: AsyncSequence & Sendable>(
        contentsOf notifications: Notifications, onResult: (APNsSendResult) async -> APNsBatchControl
    ) async throws(Notifications.Failure) -> APNsBatchSummary where Notifications.Element == APNsNotification {
        try await sender.send(contentsOf: notifications, onResult: onResult)
    }

    /// How many notifications `send(contentsOf:onResult:)` reads ahead of the results its
    /// handler has received, at most: the input's buffer and the batch's, the requests in
    /// flight (`concurrency` per connection), and the results on their way to the handler.
    /// Measured: `AsyncSequenceSendTests` (a handler that stops reading).
    public static func batchReadAhead(concurrency: Int, connections: Int) -> Int {
        AsyncSequenceFeed.capacity + FeedPrefetcher.defaultCapacity + max(1, concurrency) * max(1, connections)
            + ResultDispatcher.capacity + ResultChannel.capacity
    }
}

extension BatchSender {
    package func send<Notifications: AsyncSequence & Sendable>(
        contentsOf notifications: Notifications, onResult: (APNsSendResult) async -> APNsBatchControl
    ) async throws(Notifications.Failure) -> APNsBatchSummary where Notifications.Element == APNsNotification {
        let channel = ResultChannel()
        if track(channel) { channel.releaseBackPressure() }
        defer { untrack(channel) }
        let feed = AsyncSequenceFeed(notifications)
        let stopSwitch = BatchStopSwitch()
        // A child task: cancelling the caller cancels the batch (`send(_:control:onResult:)`),
        // and nothing of it outlives this call.
        async let sent = sendAndHandBack(feed, stopSwitch: stopSwitch, channel: channel)
        var stopping = false
        // Every result, the cancelled ones too: `channel.next()` ignores the caller's
        // cancellation, and the channel ends only after the last result.
        while let result = await channel.next() {
            if await onResult(result) == .stop, !stopping {
                stopping = true
                feed.stop()
                stopSwitch.stop()
            }
        }
        let summary = await sent
        if let failure = feed.failure {
            // The feed iterates the sequence, whose iterator throws only `Failure`.
            guard let typed = failure as? Notifications.Failure else {
                preconditionFailure("The notification sequence threw \(type(of: failure)), which is not its Failure type.")
            }
            throw typed
        }
        return summary
    }

    /// Runs the batch over `feed`, then hands back as "not sent" what the feed pulled from the
    /// input and the batch never took, and ends `channel`.
    private func sendAndHandBack(_ feed: AsyncSequenceFeed, stopSwitch: BatchStopSwitch, channel: ResultChannel) async -> APNsBatchSummary {
        var summary = await withTaskCancellationHandler {
            await send(feed, stopSwitch: stopSwitch) { channel.put($0) }
        } onCancel: {
            feed.stop()
        }
        feed.stop()
        await feed.waitForProducer()
        for (index, notification) in feed.takeUnread() {
            let result = BatchSender.unsent(index, notification, .cancelled(written: false))
            summary.record(result)
            channel.put(result)
        }
        channel.finish()
        return summary
    }
}

/// Stops a batch on its caller's word (`APNsBatchControl.stop`), also before its run exists.
final class BatchStopSwitch: Sendable {
    private let state = Locked<(runs: [BatchRun], stopped: Bool)>(([], false))

    /// The batch's runs (one per event loop) to stop; stopped at once if the caller already asked.
    func attach(_ runs: [BatchRun]) {
        let stopNow = state.withLock { state in
            state.runs = runs
            return state.stopped
        }
        if stopNow { for run in runs { run.stop() } }
    }

    func stop() {
        let runs: [BatchRun] = state.withLock { state in
            state.stopped = true
            return state.runs
        }
        for run in runs { run.stop() }
    }
}
