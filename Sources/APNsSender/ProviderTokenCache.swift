import APNsCredentials
import Foundation

/// Holds the current provider token and replaces it on schedule. APNs refuses tokens older
/// than an hour (ExpiredProviderToken) and rate-limits fresh ones (TooManyProviderTokenUpdates),
/// so one token serves every request for `refreshInterval` (40 minutes, inside Apple's 20-60).
public final class ProviderTokenCache: @unchecked Sendable {
    private let signer: ProviderTokenSigner
    public let refreshInterval: TimeInterval
    private let lock = NSLock()
    private var current: (token: String, issued: Date)?
    /// How many tokens have been minted (tests prove it is not one per request).
    public private(set) var mintedCount = 0

    public init(signer: ProviderTokenSigner, refreshInterval: TimeInterval = 40 * 60) {
        self.signer = signer
        self.refreshInterval = refreshInterval
    }

    /// The token to send now.
    public func token(now: Date = Date()) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let current, now.timeIntervalSince(current.issued) < refreshInterval { return current.token }
        let token = try signer.token(issuedAt: now)
        current = (token, now)
        mintedCount += 1
        return token
    }

    /// Drops `rejected` (APNs said ExpiredProviderToken) so the next call mints a new one; a
    /// token already replaced by another thread is left alone.
    public func invalidate(_ rejected: String) {
        lock.lock()
        if current?.token == rejected { current = nil }
        lock.unlock()
    }
}
