// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Reads a file (or stdin) line by line in fixed-size chunks, so a batch of a million tokens
/// costs the memory of one chunk, not of the file, and a hostile 1 GB line costs nothing: a
/// line longer than `maximumLineLength` is reported as such and skipped, never buffered.
///
/// Not `Sendable`: one reader, one thread. Its variables are `@exclusivity(unchecked)`: the
/// runtime's check of each access was some 190 instructions per line (`push --tokens` reads a
/// line per notification), and no two accesses can overlap, since nothing here calls out to
/// code that could reach the reader again (only to `read(2)` and `memchr`).
package final class LineReader {
    package enum Line: Equatable {
        /// A line's bytes without the newline (and without a trailing CR).
        case text([UInt8], number: Int)
        /// A line longer than the limit, skipped.
        case tooLong(number: Int)
    }

    package let maximumLineLength: Int
    private let fd: Int32
    private let ownsDescriptor: Bool
    @exclusivity(unchecked) private var chunk: [UInt8]
    @exclusivity(unchecked) private var chunkStart = 0
    @exclusivity(unchecked) private var chunkEnd = 0
    @exclusivity(unchecked) private var pending: [UInt8] = []
    @exclusivity(unchecked) private var skippingLongLine = false
    @exclusivity(unchecked) private var lineNumber = 0
    @exclusivity(unchecked) private var atEnd = false

    /// Opens `path` (`-` for stdin).
    package init(path: String, maximumLineLength: Int = 16 * 1024, chunkSize: Int = 64 * 1024) throws {
        if path == "-" {
            fd = STDIN_FILENO
            ownsDescriptor = false
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw LineReaderError(message: "Cannot open \(path): \(String(cString: strerror(errno))).")
            }
            ownsDescriptor = true
        }
        self.maximumLineLength = maximumLineLength
        chunk = [UInt8](repeating: 0, count: chunkSize)
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// The next line, or nil at end of input.
    package func next() throws -> Line? {
        while true {
            if chunkStart < chunkEnd {
                let newline = newlineIndex()
                let end = newline ?? chunkEnd
                if !skippingLongLine {
                    if pending.count + (end - chunkStart) > maximumLineLength {
                        skippingLongLine = true
                        pending.removeAll(keepingCapacity: true)
                    } else {
                        pending.append(contentsOf: chunk[chunkStart..<end])
                    }
                }
                chunkStart = newline.map { $0 + 1 } ?? chunkEnd
                if newline != nil { return finishLine() }
                continue
            }
            if atEnd {
                if skippingLongLine || !pending.isEmpty { return finishLine() }
                return nil
            }
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw LineReaderError(message: "Reading failed: \(String(cString: strerror(errno))).")
            }
            if count == 0 { atEnd = true }
            chunkStart = 0
            chunkEnd = count
        }
    }

    /// The next newline in the chunk, found with `memchr`: a byte-by-byte Swift search over a
    /// 1 GB line took minutes in a debug build, memchr takes well under a second.
    private func newlineIndex() -> Int? {
        chunk.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress,
                  let found = memchr(base + chunkStart, 0x0A, chunkEnd - chunkStart) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    private func finishLine() -> Line {
        lineNumber += 1
        if skippingLongLine {
            skippingLongLine = false
            return .tooLong(number: lineNumber)
        }
        var line = pending
        pending.removeAll(keepingCapacity: true)
        if line.last == 0x0D { line.removeLast() }
        return .text(line, number: lineNumber)
    }
}

package struct LineReaderError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
