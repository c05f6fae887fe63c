// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import CShims
import Foundation

/// How sensitive a file is, which decides its permissions.
package enum FileSensitivity: Sendable {
    /// Private keys and anything holding one (combined PEM, PKCS#12): 0600.
    case secret
    /// Certificates, CSRs, public reports: 0644.
    case `public`

    var mode: mode_t { self == .secret ? 0o600 : 0o644 }
}

/// Writes output files so that a reader never sees half a file and a key never exists with
/// loose permissions, even for a moment. See `AtomicFile` for how. The path `-` means stdout.
package enum SecureFileWriter {
    package static let standardOutputPath = "-"

    /// Fails early, before any expensive work, if `path` exists and `force` is false, or its
    /// folder does not exist. Commands call this for every output before writing the first.
    package static func preflight(_ path: String, force: Bool) throws {
        guard path != standardOutputPath else { return }
        try refuseNonRegular(path)
        if !force, FileManager.default.fileExists(atPath: path) {
            throw AtomicFile.exists(path)
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

    /// `preflight` for every output of one command, after making sure no two of them name the
    /// same file: the second write would silently replace the first (a new private key lost
    /// under its CSR), or fail after the first was written. `outputs` pairs each path with the
    /// option that named it, for the sentence.
    package static func preflight(_ outputs: [(option: String, path: String?)], force: Bool) throws {
        let given = outputs.compactMap { output in output.path.map { (option: output.option, path: $0) } }
        var seen: [String: String] = [:]
        for output in given where output.path != standardOutputPath {
            let target = canonicalTarget(output.path)
            if let earlier = seen[target] {
                throw CredentialError(.invalidArgument, "\(earlier) and \(output.option) both name \(output.path); give each output its own path.")
            }
            seen[target] = output.option
        }
        for output in given { try preflight(output.path, force: force) }
    }

    /// Refuses an existing target that is not a regular file (following symbolic links): a
    /// device node, FIFO, socket or folder. Replacing one with a 0600 key file (what a rename
    /// does under --force) would break the system's /dev/null or /dev/stdout when run as root;
    /// writing through it would send a private key wherever the node leads.
    static func refuseNonRegular(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }  // missing (or a dangling link): created new
        let type = info.st_mode & S_IFMT
        guard type != S_IFREG else { return }
        let what: String
        switch type {
        case S_IFDIR: what = "a folder"
        case S_IFCHR: what = "a character device"
        case S_IFBLK: what = "a block device"
        case S_IFIFO: what = "a FIFO"
        case S_IFSOCK: what = "a socket"
        default: what = "not a regular file"
        }
        throw CredentialError(.invalidArgument, "\(path) is \(what); apnskit writes outputs only as regular files (never over a device, FIFO or folder, even with --force): give a file path, or - for standard output.")
    }

    /// The file `path` would name: its resolved path when it exists, else its folder's
    /// resolved path and its name, so `./x`, `x` and a link to `x` compare equal.
    static func canonicalTarget(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let folder = folderOf(path)
        guard let resolved = realpath(folder, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved) + "/" + baseName(path)
    }

    /// Writes `bytes` to `path` (or stdout for `-`) atomically with the sensitivity's mode.
    package static func write(_ bytes: [UInt8], to path: String, sensitivity: FileSensitivity, force: Bool) throws {
        let file = try AtomicFile(path: path, sensitivity: sensitivity, force: force)
        try file.append(bytes)
        try file.commit()
    }

    /// Creates `path` as a folder only its owner can write (0700, whatever the umask; its
    /// parents as usual): for folders whose contents are trusted, such as a mock CA's keys
    /// and registered auth keys. Under umask 000 they used to be world-writable.
    package static func createPrivateFolder(_ path: String) throws {
        let parent = folderOf(path)
        if !FileManager.default.fileExists(atPath: parent) {
            do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
                throw CredentialError(.outputFailed, "Cannot create folder \(parent): \(error.localizedDescription)")
            }
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw CredentialError(.outputFailed, "Cannot create folder \(path): \(String(cString: strerror(errno))).")
        }
        guard chmod(path, 0o700) == 0 else {
            throw CredentialError(.outputFailed, "Cannot set the permissions of \(path): \(String(cString: strerror(errno))).")
        }
    }

    /// Refuses a trusted folder that other users can write (group or world write bit): they
    /// could put their own keys in it. As ssh does with ~/.ssh.
    package static func refuseSharedFolder(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o022 != 0 else { return }
        let mode = String(info.st_mode & 0o777, radix: 8)
        throw CredentialError(.unreadable, "\(path) can be written by other users (mode \(mode)), and apnskit trusts what is in it; run chmod go-w \(path).")
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

/// An output file that appears under its name only when complete (`commit`), for outputs
/// written in one piece and for streams (results of a batch of a million notifications):
/// - the bytes go to an unnamed temporary file (O_TMPFILE) in the target folder, created with
///   the final mode and `fchmod`ed again so the umask cannot widen it;
/// - `commit` fsyncs, then names it with `linkat` (which refuses to replace an existing file)
///   or, with `force`, a rename over the old one;
/// - a process killed before `commit` leaves no file behind at all; where O_TMPFILE is
///   unavailable a hidden `.name.XXXXXX` file is used and removed if not committed.
/// For `-` the bytes go straight to standard output.
package final class AtomicFile {
    package let path: String
    private let force: Bool
    private let mode: mode_t
    private var fd: Int32
    /// Set when the fallback named temporary file is in use.
    private var temporaryName: String?
    private var buffer: [UInt8] = []
    private var finished = false

    package init(path: String, sensitivity: FileSensitivity, force: Bool) throws {
        self.path = path
        self.force = force
        self.mode = sensitivity.mode
        if path == SecureFileWriter.standardOutputPath {
            fd = STDOUT_FILENO
            return
        }
        try SecureFileWriter.preflight(path, force: force)
        let folder = SecureFileWriter.folderOf(path)
        fd = shim_open_unnamed_tmpfile(folder, mode)
        if fd < 0 {
            var template = Array("\(folder)/.\(SecureFileWriter.baseName(path)).XXXXXX".utf8CString)
            fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { throw Self.failure(path) }
            temporaryName = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        guard fchmod(fd, mode) == 0 else {
            let error = Self.failure(path)
            discard()
            throw error
        }
    }

    deinit { if !finished { discard() } }

    /// Adds bytes; they reach the disk in 64 KiB pieces.
    package func append(_ bytes: some Collection<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 65_536 { try flush() }
    }

    /// Makes the file visible under its name, complete.
    package func commit() throws {
        guard !finished else { return }
        try flush()
        if fd == STDOUT_FILENO { finished = true; return }
        guard fsync(fd) == 0 else { throw Self.failure(path) }
        // Again at the last moment: the target may have become a device since `init`.
        try SecureFileWriter.refuseNonRegular(path)
        let folder = SecureFileWriter.folderOf(path)
        if let temporaryName {
            if force {
                guard rename(temporaryName, path) == 0 else { throw Self.failure(path) }
            } else {
                guard link(temporaryName, path) == 0 else { throw errno == EEXIST ? Self.exists(path) : Self.failure(path) }
                unlink(temporaryName)
            }
            self.temporaryName = nil
        } else if shim_link_unnamed_tmpfile(fd, path) != 0 {
            guard errno == EEXIST else { throw Self.failure(path) }
            guard force else { throw Self.exists(path) }
            // Replace: name the finished file, then rename it over the old one.
            let hidden = "\(folder)/.\(SecureFileWriter.baseName(path)).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
            guard shim_link_unnamed_tmpfile(fd, hidden) == 0 else { throw Self.failure(path) }
            guard rename(hidden, path) == 0 else {
                let error = Self.failure(path)
                unlink(hidden)
                throw error
            }
        }
        close(fd)
        finished = true
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY)
        if folderFD >= 0 { fsync(folderFD); close(folderFD) }
    }

    /// Drops everything written; the target is untouched.
    package func discard() {
        guard !finished else { return }
        finished = true
        buffer.removeAll()
        if fd != STDOUT_FILENO { close(fd) }
        if let temporaryName { unlink(temporaryName) }
    }

    private func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let n = buffer[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.failure(path)
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    static func failure(_ path: String) -> CredentialError {
        CredentialError(.outputFailed, "Cannot write \(path): \(String(cString: strerror(errno))).")
    }

    static func exists(_ path: String) -> CredentialError {
        CredentialError(.outputExists, "\(path) already exists; choose another path or allow it to be replaced.", file: path, remedy: .replaceOutput)
    }
}
