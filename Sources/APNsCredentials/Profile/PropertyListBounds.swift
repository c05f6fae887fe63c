/// What a profile's property list must look like before Foundation's parser is given it.
///
/// Apple's profiles are XML property lists a few kilobytes long, nested three levels deep
/// (dictionary, Entitlements, an array of keychain groups). swift-foundation's
/// `PropertyListDecoder` recurses once per level and has no limit: about 5,000 nested arrays
/// overflow the main thread's 8 MB stack (SIGSEGV in `XMLPlistScanner.scanArray`), and far
/// fewer a secondary thread's. It also reads binary and OpenStep lists, which no profile uses.
/// Refusing those here keeps the parser on inputs shaped like profiles.
public enum PropertyListBounds {
    /// Larger property lists are refused (Apple's largest, with 100s of devices and dozens of
    /// developer certificates, stay well under a megabyte).
    public static let maximumSize = 4 * 1024 * 1024
    /// Deeper nesting of `<dict>`/`<array>` is refused.
    public static let maximumDepth = 32

    public static func check(_ bytes: [UInt8], label: String) throws {
        guard bytes.count <= maximumSize else {
            throw CredentialError(.unreadable, "\(label) holds a property list of \(bytes.count) bytes, more than the \(maximumSize / 1_048_576) MiB apnskit reads; it is not a provisioning profile.")
        }
        let start = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        guard start.starts(with: Array("<?xml".utf8)) || start.starts(with: Array("<plist".utf8)) || start.starts(with: Array("<!DOCTYPE".utf8)) else {
            throw CredentialError(.unreadable, "\(label) does not hold an XML property list; a provisioning profile's content is XML.")
        }
        if let depth = nestingBeyondLimit(bytes) {
            throw CredentialError(.unreadable, "\(label) holds a property list nested \(depth) levels deep, more than the \(maximumDepth) apnskit reads; it is not a provisioning profile.")
        }
    }

    /// The depth reached once it passes `maximumDepth`, else nil. Counts `<dict>` and
    /// `<array>` openings against their closings; self-closing `<dict/>` does not nest.
    static func nestingBeyondLimit(_ bytes: [UInt8]) -> Int? {
        var depth = 0
        var index = 0
        let open: [[UInt8]] = [Array("<dict".utf8), Array("<array".utf8)]
        let close: [[UInt8]] = [Array("</dict".utf8), Array("</array".utf8)]
        while index < bytes.count {
            guard bytes[index] == 0x3C else { index += 1; continue }
            let rest = bytes[index...]
            if let tag = open.first(where: { rest.starts(with: $0) }) {
                let after = index + tag.count
                let end = bytes[after...].firstIndex(of: 0x3E) ?? bytes.count
                let selfClosing = end > after && bytes[end - 1] == 0x2F
                if !selfClosing && (after == bytes.count || bytes[after] == 0x3E || bytes[after] == 0x20) {
                    depth += 1
                    if depth > maximumDepth { return depth }
                }
            } else if close.contains(where: { rest.starts(with: $0) }) {
                depth = max(0, depth - 1)
            }
            index += 1
        }
        return nil
    }
}
