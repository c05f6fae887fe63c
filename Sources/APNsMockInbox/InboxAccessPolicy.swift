// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
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
/// - Bound beyond this machine (an address other than loopback), every request must carry the
///   access token printed at start-up: `Authorization: Bearer TOKEN`, `?token=TOKEN` (the URL
///   `mock serve` prints; the answer then sets a SameSite=Strict cookie, so the page's own API
///   calls and live feed carry it), or that cookie. Anything else is 401.
///
/// Mailpit and Vite's dev server refuse foreign hosts the same way.
struct InboxAccessPolicy: RouterMiddleware {
    typealias Context = InboxRequestContext

    /// The address given to `--ui-address` (lower case, brackets removed).
    let boundHost: String
    /// The access token, when the inbox listens beyond loopback.
    let token: String?
    static let cookie = "apnskit_inbox_token"

    init(boundHost: String, token: String? = nil) {
        self.boundHost = Self.bare(boundHost.lowercased())
        self.token = token
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var setCookie = false
        if let token {
            switch presented(request, token: token) {
            case .none:
                return InboxRoutes.json(.unauthorized, .object([("error", .string(
                    "This inbox listens beyond this machine and needs its access token: open the URL mock serve printed (with ?token=), or send Authorization: Bearer TOKEN."))]))
            case .query: setCookie = true
            case .header, .cookie: break
            }
        }
        var response = try await checked(request, context: context, next: next)
        if setCookie, let token {
            response.headers[.setCookie] = "\(Self.cookie)=\(token); Path=/; HttpOnly; SameSite=Strict"
        }
        return response
    }

    enum Presented { case none, header, query, cookie }

    /// Where the request carries the token, compared in constant time.
    func presented(_ request: Request, token: String) -> Presented {
        if let value = request.headers[.authorization], value.hasPrefix("Bearer "), Self.same(String(value.dropFirst(7)), token) { return .header }
        if let query = request.uri.queryParameters.get("token"), Self.same(query, token) { return .query }
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2, parts[0] == Self.cookie, Self.same(parts[1], token) { return .cookie }
            }
        }
        return .none
    }

    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    func checked(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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
