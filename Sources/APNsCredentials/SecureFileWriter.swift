import CAPNsShims
import Foundation

/// How sensitive a file is, which decides its permissions.
public enum FileSensitivity: Sendable {
    /// Private keys and anything holding one (combined PEM, PKCS#12): 0600.
    case secret
    /// Certificates, CSRs, public reports: 0644.
    case `public`

    var mode: mode_t { self == .secret ? 0o600 : 0o644 }
}

/// Writes output files so that a reader never sees half a file and a key never exists with
/// loose permissions, even for a moment:
/// - the bytes go to an unnamed temporary file (O_TMPFILE) in the target folder, created with
///   the final mode and `fchmod`ed again so the umask cannot widen it, then fsync'd;
/// - only then does the file get its name, with `linkat` (which refuses to replace an existing
///   file) or, with `--force`, a rename over the old one;
/// - a process killed mid-write leaves no file behind at all; where O_TMPFILE is unavailable a
///   hidden `.name.XXXXXX` file is used and removed on every error path.
/// The path `-` means standard output.
public enum SecureFileWriter {
    public static let standardOutputPath = "-"

    /// Fails early, before any expensive work, if `path` exists and `force` is false, or its
    /// folder does not exist. Commands call this for every output before writing the first.
    public static func preflight(_ path: String, force: Bool) throws {
        guard path != standardOutputPath else { return }
        if !force, FileManager.default.fileExists(atPath: path) {
            throw CredentialError(.outputExists, "\(path) already exists; choose another path or pass --force to replace it.")
        }
        let folder = folderOf(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CredentialError(.outputFailed, "Cannot write \(path): folder \(folder) does not exist.")
        }
        guard access(folder, W_OK) == 0 else {
            throw CredentialError(.outputFailed, "Cannot write \(path): folder \(folder) is not writable.")
        }
    }

    /// Writes `bytes` to `path` (or stdout for `-`) atomically with the sensitivity's mode.
    public static func write(_ bytes: [UInt8], to path: String, sensitivity: FileSensitivity, force: Bool) throws {
        if path == standardOutputPath {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        try preflight(path, force: force)
        let folder = folderOf(path)
        let fd = apns_open_unnamed_tmpfile(folder, sensitivity.mode)
        if fd >= 0 {
            defer { close(fd) }
            try fill(fd: fd, with: bytes, mode: sensitivity.mode, path: path)
            try publishUnnamed(fd: fd, folder: folder, path: path, force: force)
        } else {
            try writeViaNamedTemporary(bytes, folder: folder, path: path, mode: sensitivity.mode, force: force)
        }
        syncFolder(folder)
    }

    private static func fill(fd: Int32, with bytes: [UInt8], mode: mode_t, path: String) throws {
        guard fchmod(fd, mode) == 0 else { throw failure(path) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(path)
            }
            offset += n
        }
        guard fsync(fd) == 0 else { throw failure(path) }
    }

    private static func publishUnnamed(fd: Int32, folder: String, path: String, force: Bool) throws {
        if apns_link_unnamed_tmpfile(fd, path) == 0 { return }
        guard errno == EEXIST else { throw failure(path) }
        guard force else {
            throw CredentialError(.outputExists, "\(path) already exists; choose another path or pass --force to replace it.")
        }
        // Replace: give the finished file a hidden name, then rename it over the old one.
        let hidden = try uniqueHiddenName(folder: folder, path: path)
        guard apns_link_unnamed_tmpfile(fd, hidden) == 0 else { throw failure(path) }
        guard rename(hidden, path) == 0 else {
            let error = failure(path)
            unlink(hidden)
            throw error
        }
    }

    private static func writeViaNamedTemporary(_ bytes: [UInt8], folder: String, path: String, mode: mode_t, force: Bool) throws {
        var template = Array("\(folder)/.\(baseName(path)).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw failure(path) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var published = false
        defer {
            close(fd)
            if !published { unlink(temporary) }
        }
        try fill(fd: fd, with: bytes, mode: mode, path: path)
        if force {
            guard rename(temporary, path) == 0 else { throw failure(path) }
        } else {
            guard link(temporary, path) == 0 else {
                if errno == EEXIST {
                    throw CredentialError(.outputExists, "\(path) already exists; choose another path or pass --force to replace it.")
                }
                throw failure(path)
            }
            unlink(temporary)
        }
        published = true
    }

    private static func uniqueHiddenName(folder: String, path: String) throws -> String {
        "\(folder)/.\(baseName(path)).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
    }

    private static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    private static func failure(_ path: String) -> CredentialError {
        CredentialError(.outputFailed, "Cannot write \(path): \(String(cString: strerror(errno))).")
    }

    /// The folder part of `path` ("." for a bare name). Plain string work: Foundation's
    /// `deletingLastPathComponent` traps on one-character names on Linux.
    static func folderOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
