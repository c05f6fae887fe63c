// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsProtocol
import Foundation
import Hummingbird
import NIOCore

/// The inbox's HTTP routes (docs/mock-gateway.md, "Mock inbox", documents them).
struct InboxRoutes: Sendable {
    let store: InboxStore
    /// The gateway whose faults `PUT /api/faults` replaces (nil: those routes are not served).
    var faults: ProviderAPIHandler?
    /// The webhook whose counts `GET /api/stats` shows.
    var webhook: WebhookDelivery?

    func add(to router: Router<InboxRequestContext>) {
        router.get("/") { _, _ in page() }
        router.get("/api/notifications") { request, context in list(request, channel: context.channel) }
        router.delete("/api/notifications") { _, _ in
            store.clear()
            return Response(status: .noContent)
        }
        router.get("/api/events") { _, _ in events() }
        router.get("/api/notifications/wait") { request, context in await wait(request, channel: context.channel) }
        router.get("/api/stats") { _, _ in stats() }
        if let faults {
            router.get("/api/faults") { _, _ in Self.json(.ok, faults.faults.runtimeJSON) }
            router.put("/api/faults") { request, _ in await replaceFaults(request, faults) }
        }
    }

    /// What the inbox kept and saw, the webhook's counts (null without `--webhook`), and the
    /// gateway's connections closed by reason.
    private func stats() -> Response {
        let (kept, seen) = store.counts
        let closed = (faults?.closedConnections.byReason ?? []).map { ($0.reason, JSONValue.int($0.count)) }
        return Self.json(.ok, .object([("seen", .int(seen)), ("kept", .int(kept)), ("limit", .int(store.limit)),
                                       ("webhook", webhook.map { $0.stats.json(for: $0.configuration) } ?? .null),
                                       ("connections_closed", .object(closed))]))
    }

    /// Largest `PUT /api/faults` body: `GatewayFaults.maxUnregistered` (10,000) tokens of the
    /// longest kind (100 bytes, 200 hex digits, quoted, comma and blank: 204 bytes each, about
    /// 2.04 MB) plus every other field, with room to spare. The body is read whole before it
    /// is parsed, so this is also the memory one request can take.
    package static let maxFaultsBody = 2 * 1024 * 1024

    /// `PUT /api/faults`: the body replaces every run-time fault (`GatewayFaults.parseRuntime`);
    /// the answer is the faults now in force, as `GET` shows them.
    private func replaceFaults(_ request: Request, _ gateway: ProviderAPIHandler) async -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maxFaultsBody)
        } catch {
            return Self.json(.contentTooLarge, .object([("error", .string("The body is larger than \(Self.maxFaultsBody) bytes (2 MiB); that holds \(GatewayFaults.maxUnregistered) tokens to unregister and every other fault."))]))
        }
        do {
            gateway.replaceFaults(with: try GatewayFaults.parseRuntime(Array(buffer: body)))
            return Self.json(.ok, gateway.faults.runtimeJSON)
        } catch {
            return Self.json(.badRequest, .object([("error", .string(error.message))]))
        }
    }

    /// The page, with a fresh nonce: the Content-Security-Policy lets only its own inline
    /// script run and forbids every fetch but this server's, so even a payload that slipped
    /// into the markup could neither run nor call out.
    private func page() -> Response {
        let nonce = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'"
        headers[.xContentTypeOptions] = "nosniff"
        let html = InboxPage.html.replacingOccurrences(of: "{{NONCE}}", with: nonce)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The API's list. A search stops early when its client has gone (`channel` no longer
    /// active) or the server is stopping.
    private func list(_ request: Request, channel: any Channel) -> Response {
        let parameters = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        switch InboxQuery.parse(parameters, maximum: store.limit) {
        case .failure(let error):
            return Self.json(.badRequest, .object([("error", .string(error.message))]))
        case .success(let query):
            let (entries, kept, seen) = store.newest(query.limit, where: query.matches, abandoned: { !channel.isActive })
            return Self.json(.ok, .object([("count", .int(entries.count)), ("kept", .int(kept)), ("limit", .int(store.limit)),
                                      ("seen", .int(seen)), ("notifications", .array(entries.map(\.json)))]))
        }
    }

    /// The long poll (`InboxWait`).
    private func wait(_ request: Request, channel: any Channel) async -> Response {
        let parameters = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        switch InboxWait.parse(parameters, maximum: store.limit) {
        case .failure(let error): return Self.json(.badRequest, .object([("error", .string(error.message))]))
        case .success(let wait): return await wait.answer(store, channel: channel)
        }
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: value.serialized())))
    }

    /// Server-sent events: `event: notification` with an entry's JSON (the API's shape) and
    /// its id, `event: clear` when the inbox was emptied, a comment as heartbeat. Ends when the
    /// reader falls `InboxStore.subscriberBacklog` entries behind (the page reconnects).
    private func events() -> Response {
        guard let subscription = store.subscribe() else {
            return Self.json(.serviceUnavailable, .object([("error", .string("too many live feeds open (\(InboxStore.maxSubscribers)); close a tab."))]))
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        let store = self.store
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            defer { store.unsubscribe(subscription.id) }
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            for await update in subscription.updates {
                switch update {
                case .added(let entry):
                    var text = "id: \(entry.id)\nevent: notification\ndata: "
                    text += String(decoding: entry.json.serialized(), as: UTF8.self)
                    try await writer.write(ByteBuffer(string: text + "\n\n"))
                case .cleared:
                    try await writer.write(ByteBuffer(string: "event: clear\ndata: {}\n\n"))
                case .heartbeat:
                    try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                }
            }
            try await writer.finish(nil)
        })
    }
}
