// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
public import APNsSender
public import ServiceLifecycle

/// `APNsClient` runs in a swift-service-lifecycle `ServiceGroup` beside the server that uses
/// it (a Hummingbird or Vapor app), so SIGTERM closes it after the server has answered its
/// last request. Here, not in APNsSender: only an app that imports `APNs` pulls in
/// ServiceLifecycle, and the CLI and the mock never do.
///
/// ```swift
/// let client = try APNsClient(configuration: configuration, logger: logger)
/// let group = ServiceGroup(configuration: .init(services: [client, app], gracefulShutdownSignals: [.sigterm], logger: logger))
/// try await group.run()
/// ```
///
/// A group shuts its services down in reverse order: list the client before the services that
/// send through it, so they finish their sends before it closes. Listed after them, the client
/// closes first and their last sends fail with `clientClosed`; the first such send logs a
/// warning saying so (`ServiceGroupOrderTests`).
extension APNsClient: Service {
    /// Waits for the group's graceful shutdown, then closes the client: what is in flight gets
    /// its answer, later sends fail with `APNsSendError.Code.clientClosed`. Sends work from the
    /// moment the client is made, before and while this runs. When the task is cancelled
    /// instead (the group is cancelled, a second signal), the close gives up what is in flight
    /// (`close(cancellingInFlight: true)`: those sends end `.cancelled(written:)`). Returns
    /// once every connection is gone; never throws.
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            // `gracefulShutdown()` throws only CancellationError: the task was cancelled.
        }
        await close(cancellingInFlight: Task.isCancelled, byServiceGroup: true)
    }
}
