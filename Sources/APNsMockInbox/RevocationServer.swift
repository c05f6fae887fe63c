// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore

/// The mock CA's revocation service on HTTP/1.1, at the URL its certificates name
/// (`mock ca --revocation-url`): OCSP by POST (`/ocsp`, RFC 6960 Appendix A.1) and by GET
/// (`/ocsp/<base64 request>`), and the CRL at `/wwdr.crl`. Answers come from the CA folder's
/// index at the moment of the request, so `mock revoke` takes effect at once.
package struct RevocationServer: Sendable {
    /// An OCSP request is a few hundred bytes; anything over this is refused (413).
    package static let maxRequestBytes = 16 * 1024
    /// Connections at once, and from one address; past either, a connection takes the slot of
    /// one still waiting for its request after a second, else it is closed (`ConnectionSlots`).
    package static let maxConnections = 64
    package static let maxConnectionsPerPeer = 32
    /// A request's head and body must be in within this many seconds (`ConnectionSlots`).
    package static let requestDeadlineSeconds: Int64 = 10
    static let stopGraceSeconds: UInt64 = 2

    private let service: HTTPService
    package var port: Int { service.port }

    package static func start(revocation: MockRevocation, host: String, port: Int) async throws -> RevocationServer {
        let router = Router(context: BasicRequestContext.self)
        // `--revocation-fault http-500`: every request answered 500 at once.
        if revocation.fault == .http500 { router.add(middleware: AlwaysFailing()) }
        router.post("ocsp") { request, _ -> Response in
            let body = try await request.body.collect(upTo: maxRequestBytes)
            return answer { try revocation.respond(to: Array(buffer: body)) }
        }
        router.get("ocsp/**") { request, context -> Response in
            // The request travels base64 (standard alphabet), URL-encoded, after /ocsp/.
            let encoded = context.parameters.getCatchAll().joined(separator: "/")
            guard encoded.utf8.count <= maxRequestBytes * 2, let text = encoded.removingPercentEncoding,
                  let der = Data(base64Encoded: text) else {
                return Response(status: .badRequest)
            }
            return answer { try revocation.respond(to: Array(der)) }
        }
        router.get("wwdr.crl") { _, _ -> Response in
            answer(contentType: "application/pkix-crl") { try revocation.crl() }
        }
        let slots = ConnectionSlots(total: maxConnections, perPeer: maxConnectionsPerPeer, requestSeconds: requestDeadlineSeconds)
        let http = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: [ConnectionSlotHandler(slots: slots)],
                                                                idleTimeout: .seconds(requestDeadlineSeconds)))
        let service = try await HTTPService.start(router: router, server: http, host: host, port: port, name: "apnskit-mock-revocation",
                                                  maxConnections: maxConnections + 32)
        return RevocationServer(service: service)
    }

    static func answer(contentType: String = "application/ocsp-response", _ make: () throws -> [UInt8]) -> Response {
        guard let bytes = try? make() else { return Response(status: .internalServerError) }
        return Response(status: .ok, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// Answers every request 500 without looking at it.
    struct AlwaysFailing: RouterMiddleware {
        typealias Context = BasicRequestContext
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            Response(status: .internalServerError)
        }
    }

    package func stop() async { await service.stop(graceSeconds: Self.stopGraceSeconds) }
}
