// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized

/// File names that are not UTF-8. Linux allows any bytes but `/` and NUL in a name, while a
/// Swift `String` path (and Foundation's folder walk) holds UTF-8 only: `check DIR` once left a
/// valid PEM named `u\xff\xfe.pem` out of its verdict, and naming it directly said it did not
/// exist. A CI gate must not skip a file, so such a name is carried as its escaped text (each
/// byte that is not part of valid UTF-8 written `\xHH`), registered here with its real bytes,
/// and read by those bytes (`CredentialFile.readBytes`).
package enum RawPath {
    /// Escaped path -> its real bytes.
    private static let registered = Locked([String: [UInt8]]())

    /// The path a command works with for `bytes`: the text itself when it is UTF-8, else its
    /// escaped form, remembered so that reading it opens the real bytes.
    package static func path(for bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        let escaped = escaped(bytes)
        registered.withLock { $0[escaped] = bytes }
        return escaped
    }

    /// The real bytes of a path made by `path(for:)`; nil for ordinary paths.
    package static func bytes(for path: String) -> [UInt8]? {
        registered.withLock { $0[path] }
    }

    /// UTF-8 as it is; every byte that is not part of a valid sequence as `\xHH`.
    package static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        var index = 0
        while index < bytes.count {
            let length = sequenceLength(bytes[index])
            if length > 0, index + length <= bytes.count,
               let character = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                text += character
                index += length
            } else {
                text += String(format: "\\x%02x", bytes[index])
                index += 1
            }
        }
        return text
    }

    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF4: return 4
        default: return 0
        }
    }

    /// Command-line arguments as `path(for:)` gives them: Swift decodes `argv` with U+FFFD in
    /// place of bytes that are not UTF-8, which names no file; this maps each such argument
    /// back to its real bytes (others are returned as they are).
    package static func fromCommandLine(_ arguments: [String]) -> [String] {
        var raw: [String: [UInt8]] = [:]
        for index in 0..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            if String(validating: bytes, as: UTF8.self) == nil { raw[String(decoding: bytes, as: UTF8.self)] = bytes }
        }
        return arguments.map { argument in raw[argument].map(path(for:)) ?? argument }
    }

    /// The bytes to hand to the system for `path`.
    package static func systemBytes(_ path: String) -> [UInt8] {
        bytes(for: path) ?? Array(path.utf8)
    }

    /// Every regular file under the folder `root` (recursively; links to files count, links to
    /// folders are not followed) whose extension is in `extensions`, by its bytes.
    package static func files(under root: [UInt8], extensions: Set<String>) -> [[UInt8]] {
        var found: [[UInt8]] = []
        var pending = [root]
        while let folder = pending.popLast() {
            guard let handle = opendir(cString(folder)) else { continue }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { buffer in Array(buffer.prefix { $0 != 0 }) }
                if name == [0x2E] || name == [0x2E, 0x2E] { continue }
                let full = folder + [0x2F] + name
                var status = stat()
                let kind = Int32(entry.pointee.d_type)
                if kind == Int32(DT_DIR) || (kind == Int32(DT_UNKNOWN) && lstat(cString(full), &status) == 0 && status.st_mode & S_IFMT == S_IFDIR) {
                    pending.append(full)
                    continue
                }
                guard stat(cString(full), &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
                let ext = name.lastIndex(of: 0x2E).map { String(decoding: name[($0 + 1)...], as: UTF8.self).lowercased() } ?? ""
                if extensions.contains(ext) { found.append(full) }
            }
        }
        return found
    }

    /// NUL-terminated bytes for a C call.
    package static func cString(_ bytes: [UInt8]) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }
}
