// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport

/// Why a request got no response. The difference decides whether a resend can duplicate.
package enum ProviderSendError: Error, Sendable, Equatable {
    /// The server did not process it (REFUSED_STREAM, or above GOAWAY's last stream id):
    /// resend freely.
    case notProcessed(String)
    /// The connection died with the request in flight: the server may have accepted it, so a
    /// resend may deliver twice (counted and reported).
    case connectionLost(String)
    /// No connection could be made (`ConnectionFailure.Verdict.unreachable`).
    case cannotConnect(String)
    /// The gateway refused the client certificate in the handshake (or wanted one):
    /// retrying cannot help until the credentials change.
    case credentialsRejected(String)
    /// The client was closed: no new connection is made.
    case closed(String)
}

/// What the sender needs from a connection to the provider API, kept abstract so retry and
/// accounting logic is tested against scripted faults as well as real servers. The HTTP/2
/// implementation is `HTTP2ProviderConnection`; the tests' `FakeGateway` is the other. The seam
/// is the connection, not the message: requests and answers are the transport's own
/// `HTTP2Request` and `HTTP2Response`, so a notification's request is made once, in the form the
/// client writes, and an answer reaches the retry rules as the client read it (no per-request copy).
package protocol ProviderConnection: AnyObject, Sendable {
    func send(_ request: HTTP2Request) async throws(ProviderSendError) -> HTTP2Response
    /// `send` with a completion instead of a suspension: what `BatchSender` uses, so a
    /// transport that can answer on its own thread (HTTP/2 on the event loop) costs no task and
    /// no thread hop per notification. `completion` runs exactly once and must not block.
    func submit(_ request: HTTP2Request, completion: @escaping @Sendable (Result<HTTP2Response, ProviderSendError>) -> Void)
    /// `submit` that the caller can give up through `cancellation`, telling `receiver` (the
    /// caller's request object, so no closure is made per request): the request's stream is
    /// reset so the gateway frees its slot, and the receiver is told of a failure the caller
    /// ignores (its result is `.cancelled`). Connections that cannot reset a request keep the
    /// default, which ignores `cancellation`.
    func submit(_ request: HTTP2Request, cancellation: RequestCancellation, to receiver: any ProviderResponseReceiver)
    /// False once the connection has failed or is going away; the pool then replaces it.
    var isUsable: Bool { get }
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS as last seen (APNs: 1 until a token-auth
    /// request succeeds, then hundreds).
    var maxConcurrentStreams: Int { get }
    func close()
    /// `close()`, returning once the connection is gone (in-flight requests answered or failed).
    func closeAndWait() async
}

extension ProviderConnection {
    package func closeAndWait() async { close() }

    package func submit(_ request: HTTP2Request, cancellation: RequestCancellation, to receiver: any ProviderResponseReceiver) {
        // A connection that cannot take a request back counts it written once submitted.
        guard cancellation.markWritten() else {
            receiver.received(provider: .failure(.notProcessed("The request was cancelled before it was written.")))
            return
        }
        submit(request) { receiver.received(provider: $0) }
    }

    /// `submit(_:cancellation:to:)` with a closure: for callers with no request object of
    /// their own (`PooledExchange`, which waits in a task anyway).
    package func submit(_ request: HTTP2Request, cancellation: RequestCancellation,
                       completion: @escaping @Sendable (Result<HTTP2Response, ProviderSendError>) -> Void) {
        submit(request, cancellation: cancellation, to: ProviderClosureReceiver(completion))
    }

    /// Runs `send` in a task: right for connections that are async at heart (test fakes).
    package func submit(_ request: HTTP2Request, completion: @escaping @Sendable (Result<HTTP2Response, ProviderSendError>) -> Void) {
        Task {
            do throws(ProviderSendError) {
                completion(.success(try await send(request)))
            } catch {
                completion(.failure(error))
            }
        }
    }
}

/// Who a `ProviderConnection` tells a request's outcome, exactly once, with the transport's
/// errors already sorted into the sender's three questions (`ProviderSendError`). The sender's
/// per-notification object (`NotificationEntry`) is one, so the stream holds it and no closure
/// is made for the way back (see `HTTP2ResponseReceiver`).
package protocol ProviderResponseReceiver: HTTP2ResponseReceiver, Sendable {
    /// Runs on the connection's thread (the event loop for HTTP/2) and must not block.
    func received(provider outcome: Result<HTTP2Response, ProviderSendError>)
}

extension ProviderResponseReceiver {
    /// A transport outcome, its failure mapped as `HTTP2ProviderConnection.map` says.
    package func received(_ outcome: Result<HTTP2Response, TransportError>) {
        received(provider: outcome.mapError(HTTP2ProviderConnection.map))
    }
}

/// A receiver that calls a closure, for callers with no request object of their own.
final class ProviderClosureReceiver: ProviderResponseReceiver {
    private let completion: @Sendable (Result<HTTP2Response, ProviderSendError>) -> Void

    init(_ completion: @escaping @Sendable (Result<HTTP2Response, ProviderSendError>) -> Void) {
        self.completion = completion
    }

    func received(provider outcome: Result<HTTP2Response, ProviderSendError>) { completion(outcome) }
}

/// Makes connections for the pool.
package protocol ProviderConnector: Sendable {
    func connect() async throws(ProviderSendError) -> any ProviderConnection
    /// The connection for pool slot `slot` (0-based): lets a connector place slots on
    /// different event loops (threads). Defaults to `connect()`.
    func connect(slot: Int) async throws(ProviderSendError) -> any ProviderConnection
    /// How many event loops the slots are spread over: slot `n` lives on loop `n % loopCount`.
    /// A batch runs one `BatchRun` per loop (`BatchSender`). Defaults to 1.
    var loopCount: Int { get }
}

extension ProviderConnector {
    package func connect(slot: Int) async throws(ProviderSendError) -> any ProviderConnection { try await connect() }
    package var loopCount: Int { 1 }
}
