import APNsProtocol
import Foundation
import Hummingbird

/// Who may talk to the inbox, against DNS rebinding: a page on `evil.example` whose name is
/// made to resolve to 127.0.0.1 reaches the inbox with `Host: evil.example`, and without this
/// check got the list and could DELETE it. So:
/// - `Host` must name the inbox: `localhost`, `127.0.0.1`, `[::1]`, the address it was bound
///   to, or (bound to `0.0.0.0` or `::`, whose real addresses it cannot know) any IP literal;
///   rebinding needs a name, never a literal. Anything else is 403.
/// - A state-changing request (anything but GET and HEAD) that carries `Origin` must come from
///   the inbox's own origin (`http://` + its `Host`): another page's script is 403. Without
///   `Origin` (curl, scripts) it is served, as a browser always sends one on such requests.
///
/// Mailpit and Vite's dev server refuse foreign hosts the same way.
struct InboxAccessPolicy: RouterMiddleware {
    typealias Context = InboxRequestContext

    /// The address given to `--ui-address` (lower case, brackets removed).
    let boundHost: String

    init(boundHost: String) {
        self.boundHost = Self.bare(boundHost.lowercased())
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let authority = request.head.authority, !isAllowed(host: Self.hostPart(of: authority)) {
            return InboxRoutes.json(.forbidden, .object([("error", .string(
                "Host '\(authority)' is not this inbox's address; open it as http://localhost or http://127.0.0.1 with its port."))]))
        }
        if request.method != .get, request.method != .head, let origin = request.headers[.origin],
           origin.lowercased() != "http://" + (request.head.authority ?? "").lowercased() {
            return InboxRoutes.json(.forbidden, .object([("error", .string(
                "Origin '\(origin)' is another site; only the inbox's own page may change it."))]))
        }
        return try await next(request, context)
    }

    func isAllowed(host: String) -> Bool {
        if ["localhost", "127.0.0.1", "::1", boundHost].contains(host) { return true }
        return Self.wildcards.contains(boundHost) && Self.isIPLiteral(host)
    }

    static let wildcards: Set<String> = ["0.0.0.0", "::", "[::]"]

    /// `Host`'s name without the port, lower case, brackets removed: `[::1]:8025` -> `::1`.
    static func hostPart(of authority: String) -> String {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("["), let close = lowered.firstIndex(of: "]") {
            return String(lowered[lowered.index(after: lowered.startIndex)..<close])
        }
        let name = lowered.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? lowered
        return name.hasSuffix(".") ? String(name.dropLast()) : name
    }

    private static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// An IPv4 dotted quad or an IPv6 literal, as `inet_pton` reads them.
    static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
