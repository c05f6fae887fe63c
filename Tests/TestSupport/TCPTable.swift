// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The kernel's TCP tables (/proc/net/tcp and /proc/net/tcp6): what a test looks at to see a
/// connection's state from outside both ends (a peer's connection accepted, a socket left in
/// CLOSE-WAIT, bytes still queued), through `Wait.until`.
public enum TCPTable {
    /// The states tests look for, as the tables spell them.
    public enum State: String, Sendable { case established = "01", closeWait = "08" }

    /// The rows in `state` whose local port is `port` (with `remoteToo`, or whose remote port
    /// is), split into fields: [1] local address, [2] remote address, [3] state, [4] the
    /// transmit and receive queues.
    public static func rows(port: Int, state: State, remoteToo: Bool = false) -> [[Substring]] {
        // Both tables: a server listening on both families shows 127.0.0.1 as an IPv4-mapped
        // address in tcp6. Read to the end: /proc files report size 0, and with many
        // connections open (other builds and tests on the machine) a sized read missed rows.
        let table = ["/proc/net/tcp", "/proc/net/tcp6"]
            .map { String(decoding: FileHandle(forReadingAtPath: $0)?.readDataToEndOfFile() ?? Data(), as: UTF8.self) }
            .joined(separator: "\n")
        let suffix = ":" + String(format: "%04X", port)
        return table.split(separator: "\n").map { $0.split(separator: " ") }.filter { fields in
            fields.count > 4 && fields[3] == state.rawValue && (fields[1].hasSuffix(suffix) || (remoteToo && fields[2].hasSuffix(suffix)))
        }
    }

    /// How many connections accepted on local `port` are in `state`.
    public static func count(port: Int, state: State) -> Int { rows(port: port, state: state).count }
}
