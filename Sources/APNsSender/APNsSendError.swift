// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol

/// Why a notification got no answer from APNs: a code a program can switch on, the sentence a
/// person reads (`description`), and whether APNs may have it all the same.
///
/// A struct with a code, not an enum (as async-http-client's `HTTPClientError` and APNSwift's
/// `APNSError` are): new codes can be added without breaking a caller's `switch`.
public struct APNsSendError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is, for a program to branch on; constants of a struct, not enum
    /// cases, so that a new code is not a breaking change.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name (`gatewayUnreachable`), stable for logs and tests.
        public var description: String { name }

        /// The notification breaks a rule APNs would refuse it for (payload too large, a bad
        /// collapse id); it was not sent.
        public static let invalidNotification = Code("invalidNotification")
        /// No connection to the gateway could be made (DNS, TCP, TLS, an outage in progress).
        public static let gatewayUnreachable = Code("gatewayUnreachable")
        /// The gateway refused the client certificate in the TLS handshake.
        public static let credentialsRejected = Code("credentialsRejected")
        /// Every attempt was lost with the connection or timed out; see `mayHaveBeenDelivered`.
        public static let connectionLost = Code("connectionLost")
        /// A provider token could not be signed with the .p8 key.
        public static let tokenSigningFailed = Code("tokenSigningFailed")
        /// The client was closed before the notification could be sent.
        public static let clientClosed = Code("clientClosed")
        /// APNs answered the request with an error (channel management calls, which return a
        /// value or throw): `status` and `reason` say which.
        public static let rejected = Code("rejected")
        /// The calling task was cancelled before an answer came; `mayHaveBeenDelivered` says
        /// whether the request had been written.
        public static let cancelled = Code("cancelled")
        /// The client's configuration cannot serve the call (a custom gateway without a
        /// channel management gateway).
        public static let invalidConfiguration = Code("invalidConfiguration")
    }

    /// The kind of failure: whether to wait for the gateway, fix credentials, or resend.
    public let code: Code
    /// One sentence: what failed and, where it helps, what to do.
    public let description: String
    /// True when an attempt was written and then lost (connection died, no answer in time):
    /// APNs may deliver it, so a resend may notify twice. False: APNs never processed it.
    public let mayHaveBeenDelivered: Bool
    /// With `rejected`: APNs' HTTP status and reason.
    public let status: Int?
    /// With `rejected`: the reason APNs gave.
    public let reason: APNsReason?

    /// An error of `code` with its sentence; public so that a test double of yours can fail the same way.
    public init(_ code: Code, _ description: String, mayHaveBeenDelivered: Bool = false, status: Int? = nil, reason: APNsReason? = nil) {
        self.code = code
        self.description = description
        self.mayHaveBeenDelivered = mayHaveBeenDelivered
        self.status = status
        self.reason = reason
    }
}
