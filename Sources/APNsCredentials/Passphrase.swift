/// A passphrase in memory. Its description never shows the text, so it cannot end up in a
/// log line or an error message by accident; the bytes are reachable only through
/// `withCallbackContext`, which is how OpenSSL receives them.
public struct Passphrase: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    package let bytes: [UInt8]

    public init(_ text: String) { bytes = Array(text.utf8) }
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The empty passphrase (PKCS#12 files exported with no password).
    public static let empty = Passphrase(bytes: [])

    public var isEmpty: Bool { bytes.isEmpty }
    public var description: String { "<passphrase>" }
    public var debugDescription: String { "<passphrase>" }
}
