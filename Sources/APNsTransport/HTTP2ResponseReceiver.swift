// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0

/// Who a client session tells a request's outcome: the response, a reset, the connection's
/// end or a timeout, exactly once, on the loop thread.
///
/// An object rather than a closure, so a caller's own per-request object can take the answer
/// itself: the sender's object per notification carries the notification, its attempt and its
/// connection, and the stream holds it directly. With a closure, every request paid for a
/// closure context at each layer it crossed (the run's, the provider connection's error
/// mapping), each a heap allocation and a round of retains (docs/benchmarks.md, issue 33).
package protocol HTTP2ResponseReceiver: AnyObject {
    /// The request's outcome. Runs on the loop thread and must not block: a sender submits its
    /// next request from here.
    func received(_ outcome: Result<HTTP2Response, TransportError>)
}

/// A receiver that calls a closure: for callers with no request object of their own (a single
/// `send`, tests, the fuzzing harness), where one allocation per request does not matter.
final class ClosureReceiver: HTTP2ResponseReceiver {
    private let completion: (Result<HTTP2Response, TransportError>) -> Void

    init(_ completion: @escaping (Result<HTTP2Response, TransportError>) -> Void) {
        self.completion = completion
    }

    func received(_ outcome: Result<HTTP2Response, TransportError>) { completion(outcome) }
}

/// `ClosureReceiver` for a `@Sendable` closure, which may cross to the loop thread.
final class SendableClosureReceiver: HTTP2ResponseReceiver, Sendable {
    private let completion: @Sendable (Result<HTTP2Response, TransportError>) -> Void

    init(_ completion: @escaping @Sendable (Result<HTTP2Response, TransportError>) -> Void) {
        self.completion = completion
    }

    func received(_ outcome: Result<HTTP2Response, TransportError>) { completion(outcome) }
}
