// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// One running Hummingbird application of the mock (the inbox, the revocation responder):
/// started so that the caller learns the bound port or why it could not bind, and stopped
/// within a grace period whatever its requests are doing. It runs in a `ServiceGroup`, so a
/// stop is first a graceful shutdown (requests in progress finish and their responses are
/// closed properly); only what outlives the grace period is cancelled. Cancelling at once, as
/// before, could drop a response writer mid-stream, which NIO treats as a fatal error in debug
/// builds (seen once when SIGTERM ended a mock whose inbox fed a live feed under load).
package struct HTTPService: Sendable {
    /// The server could not start: `host:port` could not be bound (in use, not an address of
    /// this machine, not allowed).
    package struct StartError: Error, Sendable {
        package let host: String
        package let port: Int
        package let underlying: String
    }

    /// The port bound (the one asked for, or the one picked for 0).
    package let port: Int
    private let running: Task<Void, Error>
    private let group: ServiceGroup

    /// Binds and starts serving `router`; returns once the port is known, or throws `StartError`.
    package static func start<Context: RequestContext>(router: Router<Context>, server: HTTPServerBuilder, host: String, port: Int,
                                                       name: String, maxConnections: Int) async throws -> HTTPService
    where Context.Source == ApplicationRequestContextSource {
        let (ports, portReady) = AsyncStream<Int>.makeStream()
        let configuration = ApplicationConfiguration(address: .hostname(host, port: port), serverName: name,
                                                     availableConnectionsDelegate: MaximumAvailableConnections(maxConnections))
        // A library never prints: Hummingbird's own log lines go nowhere.
        let quiet = Logger(label: "apnskit.mock.\(name)", factory: { _ in SwiftLogNoOpLogHandler() })
        let app = Application(router: router, server: server, configuration: configuration,
                              onServerRunning: { channel in
                                  portReady.yield(channel.localAddress?.port ?? 0)
                                  portReady.finish()
                              },
                              logger: quiet)
        let group = ServiceGroup(configuration: .init(services: [app], logger: quiet))
        let running = Task {
            defer { portReady.finish() }
            try await group.run()
        }
        var waiting = ports.makeAsyncIterator()
        guard let bound = await waiting.next() else {
            do {
                try await running.value
            } catch {
                throw StartError(host: host, port: port, underlying: "\(error)")
            }
            throw StartError(host: host, port: port, underlying: "the server stopped before it listened")
        }
        return HTTPService(port: bound, running: running, group: group)
    }

    /// Stops listening and waits for the server to finish, at most `graceSeconds`.
    package func stop(graceSeconds: UInt64) async {
        await group.triggerGracefulShutdown()
        if await finished(within: graceSeconds) { return }
        running.cancel()
        _ = await finished(within: graceSeconds)
    }

    /// Whether the server finished within `seconds`.
    private func finished(within seconds: UInt64) async -> Bool {
        let (finished, finish) = AsyncStream<Bool>.makeStream()
        let running = self.running
        let waiter = Task {
            _ = try? await running.value
            finish.yield(true)
            finish.finish()
        }
        let timer = Task {
            try? await Task.sleep(nanoseconds: seconds * 1_000_000_000)
            finish.yield(false)
            finish.finish()
        }
        var result = false
        for await value in finished {
            result = value
            break
        }
        timer.cancel()
        waiter.cancel()
        return result
    }
}
