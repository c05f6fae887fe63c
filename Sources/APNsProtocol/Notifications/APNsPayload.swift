// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A notification's body, typed: what `APNsNotification(token:payload:)` encodes instead of
/// hand-written JSON. Each conforming type belongs to one push type, which sets the
/// `apns-push-type` header and (through the client's bundle id) the topic suffix, and may
/// imply a priority or expiration (apns-protocol.md §1, §8).
public protocol APNsPayload: Encodable, Sendable {
    /// The `apns-push-type` this payload is sent as.
    var pushType: APNsPushType { get }
    /// The priority sent when the caller chooses none; nil lets APNs use 10.
    var defaultPriority: APNsPriority? { get }
    /// The expiration sent when the caller chooses none; nil lets APNs store and retry.
    var defaultExpiration: UInt64? { get }
}

extension APNsPayload {
    public var defaultPriority: APNsPriority? { nil }
    public var defaultExpiration: UInt64? { nil }

    /// The JSON bytes APNs receives, encoded with `encoder` (whose strategies apply to the
    /// app's own values: dates in a Live Activity's content state, say) and checked as the
    /// sender checks raw payloads (`PayloadCheck`): a JSON object within the push type's limit.
    /// Throws `APNsPayloadError` with a sentence saying what is wrong.
    public func encoded(with encoder: JSONEncoder = JSONEncoder()) throws(APNsPayloadError) -> [UInt8] {
        try encoded(with: encoder, limit: pushType.payloadLimit)
    }

    /// `encoded(with:)` against a size limit of the caller's (a broadcast takes 5,120 bytes
    /// where a device's Live Activity push takes 4,096; apns-protocol.md §8).
    package func encoded(with encoder: JSONEncoder, limit: Int) throws(APNsPayloadError) -> [UInt8] {
        if let carrier = self as? any APNsCarriesAppKeys, let custom = carrier.custom {
            try APNsAppKeys.check(custom, with: encoder, pushType: pushType)
        }
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(self))
        } catch {
            // A payload's own `encode(to:)` throws `APNsPayloadError` for a value outside Apple's
            // ranges; anything else is the encoder's (the app's values did not encode).
            if let error = error as? APNsPayloadError { throw error }
            throw APNsPayloadError(.encodingFailed, "The \(pushType.rawValue) payload could not be encoded as JSON: \(error).")
        }
        if let problem = PayloadCheck.problem(bytes, pushType: pushType, limit: limit) {
            switch problem {
            case .tooLarge(let size, _, _) where limit != pushType.payloadLimit:
                throw APNsPayloadError(.tooLarge, "The payload is \(size) bytes; a broadcast takes at most \(limit): shorten it.")
            case .tooLarge: throw APNsPayloadError(.tooLarge, problem.sentence.prefix(1).uppercased() + problem.sentence.dropFirst() + ": shorten it.")
            case .empty, .notAnObject:
                throw APNsPayloadError(.notAnObject, "The \(pushType.rawValue) payload must encode as a JSON object (APNs drops anything else), but \(problem.sentence).")
            }
        }
        return bytes
    }
}

/// Why a typed payload could not become a notification body. A struct with a code, like
/// `APNsSendError`, so new codes do not break a caller's `switch`; `description` is the
/// sentence to show.
public struct APNsPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is, for a program to branch on; a struct of constants rather than
    /// an enum so that a new code is not a breaking change.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name (`tooLarge`), stable for logs and tests.
        public var description: String { name }

        /// A value outside what Apple accepts (a volume or relevance score outside 0...1, an
        /// app key named `aps`).
        public static let invalidValue = Code("invalidValue")
        /// The encoded payload is larger than the push type's limit (4,096 bytes; VoIP 5,120).
        public static let tooLarge = Code("tooLarge")
        /// The payload did not encode as a JSON object.
        public static let notAnObject = Code("notAnObject")
        /// The encoder threw (an app value's own `encode(to:)`, a non-finite number).
        public static let encodingFailed = Code("encodingFailed")
    }

    /// The kind of problem.
    public let code: Code
    /// One sentence: what is wrong and what to do.
    public let description: String

    /// An error of `code` whose sentence is `description`.
    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}

/// The coding key for names known only at run time (an app's top-level keys).
struct APNsAnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
