// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The results of `APNsClient.send(contentsOf:)`, one per notification, in the order their
/// answers come (`APNsSendResult.index` is the notification's position in the input).
///
/// Iterating starts the batch; the batch reads the input only as fast as results are consumed
/// (at most a few hundred notifications ahead: back-pressure both ways). Cancelling the
/// iterating task, or dropping the iterator before the end, cancels the batch: what was not
/// written ends `.cancelled(written: false)` and is not delivered to anyone. If the input
/// sequence throws, the results of what it yielded come first, then `next()` rethrows.
public struct APNsSendResults: AsyncSequence, Sendable {
    public typealias Element = APNsSendResult

    private let start: @Sendable (ResultChannel) -> Task<Void, Never>

    init(start: @escaping @Sendable (ResultChannel) -> Task<Void, Never>) {
        self.start = start
    }

    public func makeAsyncIterator() -> Iterator { Iterator(start: start) }

    public final class Iterator: AsyncIteratorProtocol {
        private let start: @Sendable (ResultChannel) -> Task<Void, Never>
        private let channel = ResultChannel()
        private var batch: Task<Void, Never>?

        init(start: @escaping @Sendable (ResultChannel) -> Task<Void, Never>) {
            self.start = start
        }

        deinit {
            // Left before the end: stop the batch, and never block its result thread.
            channel.abandon()
            batch?.cancel()
        }

        public func next() async throws -> APNsSendResult? {
            if batch == nil { batch = start(channel) }
            let channel = self.channel
            let batch = self.batch
            return try await withTaskCancellationHandler {
                try await channel.next()
            } onCancel: {
                channel.abandon()
                batch?.cancel()
            }
        }
    }
}

extension APNsClient {
    /// Sends every notification `notifications` yields, as a batch (its own `concurrency`
    /// window per connection), and returns their results as they come. See `APNsSendResults`
    /// for back-pressure and cancellation.
    ///
    /// ```swift
    /// for try await result in client.send(contentsOf: notifications) where !result.isDelivered {
    ///     log(result)
    /// }
    /// ```
    public func send<Notifications: AsyncSequence & Sendable>(contentsOf notifications: Notifications) -> APNsSendResults
    where Notifications.Element == APNsNotification {
        sender.send(contentsOf: notifications)
    }
}

extension BatchSender {
    package func send<Notifications: AsyncSequence & Sendable>(contentsOf notifications: Notifications) -> APNsSendResults
    where Notifications.Element == APNsNotification {
        APNsSendResults { [self] channel in
            Task {
                if track(channel) { channel.releaseBackPressure() }
                defer { untrack(channel) }
                let feed = AsyncSequenceFeed(notifications)
                _ = await withTaskCancellationHandler {
                    await send(feed) { channel.put($0) }
                } onCancel: {
                    feed.stop()
                }
                feed.stop()
                // Pulled from the sequence, never sent: their results too (exactly one each).
                await feed.waitForProducer()
                for (index, notification) in feed.takeUnread() {
                    channel.put(BatchSender.unsent(index, notification, .cancelled(written: false)))
                }
                channel.finish(throwing: Task.isCancelled ? CancellationError() : feed.failure)
            }
        }
    }
}
