/// A provider API request as the server sees it, after the checks that need no credentials.
public struct ValidatedRequest: Sendable, Equatable {
    public let token: DeviceToken
    /// `apns-id` as sent (nil: the server generates one).
    public let apnsID: String?
    public let topic: String?
    public let pushType: PushType?
    public let priority: Priority
    public let expiration: UInt64?
    public let collapseID: String?
    public let authorization: String?
    public let payloadSize: Int
}

/// The request rules of APNs' provider API (APNS.md section 1), in one place, so that the mock
/// gateway enforces exactly what the sender pre-checks. Rules that need the connection's
/// credentials (topics of the client certificate, provider tokens) are the gateway's.
public enum RequestValidator {
    public typealias Header = (name: String, value: String)

    /// The request's headers that APNs reads, each allowed at most once.
    static let apnsHeaders: Set<String> = [
        "authorization", "apns-id", "apns-expiration", "apns-priority", "apns-topic", "apns-push-type", "apns-collapse-id",
    ]

    public static let pathPrefix = "/3/device/"

    public static func validate(method: String, path: String, headers: [Header], body: [UInt8]) -> Result<ValidatedRequest, APNsReasonError> {
        guard method == "POST" else { return .failure(.init(.methodNotAllowed)) }
        guard path.hasPrefix(pathPrefix) else { return .failure(.init(.badPath)) }
        let tokenText = path.dropFirst(pathPrefix.count)
        guard !tokenText.isEmpty else { return .failure(.init(.missingDeviceToken)) }
        guard tokenText.utf8.allSatisfy(Self.isHexDigit),
              let token = try? DeviceToken(parsing: String(tokenText)) else {
            return .failure(.init(.badDeviceToken))
        }
        var seen: [String: String] = [:]
        for header in headers where apnsHeaders.contains(header.name) {
            guard seen[header.name] == nil else { return .failure(.init(.duplicateHeaders)) }
            seen[header.name] = header.value
        }
        if let id = seen["apns-id"], !isCanonicalUUID(id) { return .failure(.init(.badMessageId)) }
        var expiration: UInt64?
        if let text = seen["apns-expiration"] {
            guard let value = UInt64(text) else { return .failure(.init(.badExpirationDate)) }
            expiration = value
        }
        var priority = Priority.immediate
        if let text = seen["apns-priority"] {
            guard let value = Int(text), let parsed = Priority(rawValue: value) else { return .failure(.init(.badPriority)) }
            priority = parsed
        }
        var pushType: PushType?
        if let text = seen["apns-push-type"] {
            guard let parsed = PushType(rawValue: text) else { return .failure(.init(.invalidPushType)) }
            pushType = parsed
        }
        if let collapse = seen["apns-collapse-id"], collapse.utf8.count > 64 { return .failure(.init(.badCollapseId)) }
        guard !body.isEmpty else { return .failure(.init(.payloadEmpty)) }
        if body.count > (pushType ?? .alert).payloadLimit { return .failure(.init(.payloadTooLarge)) }
        return .success(ValidatedRequest(token: token, apnsID: seen["apns-id"], topic: seen["apns-topic"], pushType: pushType,
                                         priority: priority, expiration: expiration, collapseID: seen["apns-collapse-id"],
                                         authorization: seen["authorization"], payloadSize: body.count))
    }

    /// 8-4-4-4-12 hex digits with hyphens (APNs documents lower case; upper case hex is
    /// accepted as the same UUID).
    public static func isCanonicalUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !isHexDigit(byte) {
                return false
            }
        }
        return true
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}

/// A rejection with APNs' reason.
public struct APNsReasonError: Error, Sendable, Equatable {
    public let reason: APNsReason
    public init(_ reason: APNsReason) { self.reason = reason }
}
