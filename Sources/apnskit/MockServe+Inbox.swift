import APNsMockInbox
import ArgumentParser
import Foundation

/// `mock serve`'s inbox flags: the web UI that shows every request the gateway answered.
struct InboxOptions: ParsableArguments {
    @Option(name: .customLong("ui-port"), help: "Serve the inbox web UI on this port (0: any free port); off by default.")
    var port: Int?

    @Option(name: .customLong("ui-address"), help: "Address the inbox web UI listens on (default 127.0.0.1: this machine only).")
    var address: String?

    @Option(name: .customLong("inbox-limit"), help: "Requests the inbox keeps, newest first (the --record file stays the complete log).")
    var limit: Int = InboxStore.defaultLimit

    func validate() throws {
        if let port, port < 0 || port > 65_535 { throw ValidationError("--ui-port must be a port number (0 for any free port).") }
        if port == nil, address != nil { throw ValidationError("--ui-address needs --ui-port: the inbox is off without it.") }
        guard limit >= 1 else { throw ValidationError("--inbox-limit must be at least 1.") }
    }

    var host: String { address ?? "127.0.0.1" }

    /// The page's address as a browser takes it (an IPv6 literal in brackets).
    func url(port: Int) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
    }

    /// Only this machine can reach it: `localhost`, 127.0.0.0/8 or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        var v4 = in_addr()
        return inet_pton(AF_INET, bare, &v4) == 1 && UInt32(bigEndian: v4.s_addr) >> 24 == 127
    }

    /// The store and its server, or nil without --ui-port; a bind failure is exit 4.
    func start() async throws -> (store: InboxStore, server: InboxServer)? {
        guard let port else { return nil }
        let store = InboxStore(limit: limit)
        do {
            let server = try await InboxServer.start(store: store, host: host, port: port)
            if !Self.isLoopback(host) {
                Output.warning("the inbox web UI listens on \(host), beyond this machine, without authentication: anyone who reaches \(url(port: server.port)) sees every device token and payload and can clear the inbox. Use --ui-address 127.0.0.1 unless every machine on that network is trusted.")
            }
            return (store, server)
        } catch let error as InboxServer.StartError {
            throw CommandFailure(message: "Cannot start the inbox web UI on \(error.host):\(error.port): \(error.underlying); choose another --ui-port (0 picks a free one) or --ui-address.",
                                 status: ExitStatus.network)
        }
    }
}
