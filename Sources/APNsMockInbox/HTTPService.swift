import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// One running Hummingbird application of the mock (the inbox, the revocation responder):
/// started so that the caller learns the bound port or why it could not bind, and stopped
/// within a grace period whatever its requests are doing.
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
        let running = Task {
            defer { portReady.finish() }
            try await app.run()
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
        return HTTPService(port: bound, running: running)
    }

    /// Stops listening and waits for the server to finish, at most `graceSeconds`.
    package func stop(graceSeconds: UInt64) async {
        running.cancel()
        let (finished, finish) = AsyncStream<Void>.makeStream()
        let running = self.running
        let waiter = Task {
            _ = try? await running.value
            finish.finish()
        }
        let timer = Task {
            try? await Task.sleep(nanoseconds: graceSeconds * 1_000_000_000)
            finish.finish()
        }
        for await _ in finished {}
        timer.cancel()
        waiter.cancel()
    }
}
