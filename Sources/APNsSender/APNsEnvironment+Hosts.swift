import APNsCredentials
import OpenSSLCore

/// Apple's host names per environment (apns-protocol.md §1, §4, §5): the sender's knowledge,
/// on the package's one environment type.
extension APNsEnvironment {
    /// The HTTP/2 provider API.
    public var host: String { self == .sandbox ? "api.sandbox.push.apple.com" : "api.push.apple.com" }
    /// The legacy binary gateway (apns-protocol.md §4).
    package var legacyHost: String { self == .sandbox ? "gateway.sandbox.push.apple.com" : "gateway.push.apple.com" }
    /// The legacy feedback service (apns-protocol.md §5).
    package var feedbackHost: String { self == .sandbox ? "feedback.sandbox.push.apple.com" : "feedback.push.apple.com" }
}
