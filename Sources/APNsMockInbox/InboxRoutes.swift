import APNsProtocol
import Foundation
import Hummingbird
import NIOCore

/// The inbox's HTTP routes (docs/mock-gateway.md, "Mock inbox", documents them).
struct InboxRoutes: Sendable {
    let store: InboxStore

    func add(to router: Router<InboxRequestContext>) {
        router.get("/") { _, _ in page() }
        router.get("/api/notifications") { request, context in list(request, channel: context.channel) }
        router.delete("/api/notifications") { _, _ in
            store.clear()
            return Response(status: .noContent)
        }
        router.get("/api/events") { _, _ in events() }
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
