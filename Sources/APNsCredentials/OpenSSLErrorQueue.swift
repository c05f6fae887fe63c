import COpenSSL

/// OpenSSL reports failures through a thread-local queue. We clear it before an operation
/// and drain it after one, so an error never leaks into an unrelated later call.
package enum OpenSSLErrorQueue {
    package struct Entry: Sendable {
        package let library: Int32
        package let reason: Int32
        package let text: String
    }

    /// Removes every queued error and returns them, oldest first.
    package static func drainEntries() -> [Entry] {
        var entries: [Entry] = []
        while true {
            var data: UnsafePointer<CChar>? = nil
            var flags: Int32 = 0
            let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let data, (flags & ERR_TXT_STRING) != 0 {
                let extra = String(cString: data)
                if !extra.isEmpty { text += " (\(extra))" }
            }
            entries.append(Entry(library: Int32(truncatingIfNeeded: (code >> 23) & 0xFF),
                                 reason: Int32(truncatingIfNeeded: code & 0x7FFFFF),
                                 text: text))
        }
        return entries
    }

    /// Removes every queued error and returns them as readable lines.
    package static func drain() -> [String] { drainEntries().map(\.text) }

    /// Discards anything left over from an earlier call.
    package static func clear() { ERR_clear_error() }
}
