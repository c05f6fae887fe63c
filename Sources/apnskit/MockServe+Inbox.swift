// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
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

    /// 128 random bits, hex: the inbox's access token when it listens beyond loopback.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The address to open: with `?token=` when the inbox needs one.
    func url(port: Int, token: String?) -> String {
        url(port: port) + (token.map { "?token=\($0)" } ?? "")
    }

    /// Only this machine can reach it: `localhost`, 127.0.0.0/8 or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        var v4 = in_addr()
        return inet_pton(AF_INET, bare, &v4) == 1 && UInt32(bigEndian: v4.s_addr) >> 24 == 127
    }

    /// The store the gateway reports to: with --ui-port, or for the webhook (then keeping one
    /// entry, as nobody reads the list); nil without either.
    func makeStore(webhook: WebhookDelivery?) -> InboxStore? {
        guard port != nil || webhook != nil else { return nil }
        var forward: (@Sendable (InboxStore.Entry) -> Void)?
        if let webhook { forward = { webhook.enqueue($0) } }
        return InboxStore(limit: port == nil ? 1 : limit, onAdded: forward)
    }

    /// The inbox's server, or nil without --ui-port; a bind failure is exit 4. Its API shows and
    /// replaces `faults` (the gateway's handler) and shows the webhook's counts.
    func start(store: InboxStore, faults: ProviderAPIHandler, webhook: WebhookDelivery?) async throws -> (server: InboxServer, token: String?)? {
        guard let port else { return nil }
        // Beyond this machine the inbox takes requests only with a token made now (printed once,
        // and written to the ports file for `mock expect`).
        let token = Self.isLoopback(host) ? nil : Self.newToken()
        do {
            let server = try await InboxServer.start(store: store, host: host, port: port, token: token, faults: faults, webhook: webhook)
            return (server, token)
        } catch let error as InboxServer.StartError {
            throw CommandFailure(message: "Cannot start the inbox web UI on \(error.host):\(error.port): \(error.underlying); choose another --ui-port (0 picks a free one) or --ui-address.",
                                 status: ExitStatus.network)
        }
    }
}
