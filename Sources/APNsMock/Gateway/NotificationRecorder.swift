// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import Foundation
import Synchronized

/// Appends (never truncates) one JSON line per accepted notification (and per answered channel management
/// call) to `--record FILE`, so a test can prove that nothing was lost and nothing delivered
/// twice.
///
/// Each line is handed to the kernel with one `write(2)` before `record` returns, and the
/// gateway records before it queues the answer: so once a client has an answer, its line is
/// on disk as far as any later crash of the mock is concerned (`kill -9` included; only a
/// crash of the machine itself could lose it, and `close` fsyncs for that). No user-space
/// buffer: a 64 KiB one once lost every answered notification on `kill -9`.
///
/// Fields (broadcasts: see `recordBroadcast`; channel calls: `recordChannelCall`): `apns_id`, `token`, `topic`, `push_type`, `payload_bytes`, `connection`, `protocol`
/// ("h2", "legacy"), and for legacy frames `identifier` (the client's, which need not be
/// unique; `apns_id` is, `legacy-<connection>-<n>` for the connection's n-th notification);
/// h2 notifications add `lint` (rule ids) and `device` (what a device would do, or null), and
/// when their provider token has a shape Apple's documentation does not show, `token_marks`
/// (`[{"mark": id, "note": sentence}]`, `ProviderTokenQuirk`).
package final class NotificationRecorder: Sendable {
    /// The file and the lines written to it; one lock, so lines from several connections never
    /// interleave.
    private let file: Locked<(handle: FileHandle, count: Int)>

    /// Lines written so far.
    package var count: Int { file.withLock { $0.count } }

    /// Opens `path` for appending (`O_APPEND`), creating it if needed: a restart with the same
    /// `--record` keeps the lines of earlier runs (the file was once truncated, so a `kill -9`
    /// and a restart left none of the 13,598 lines that proved each delivery). Only a regular
    /// file (or a link to one) is taken: a FIFO would block the gateway and a device would
    /// swallow the proof.
    package init(path: String) throws {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw APNsCredentialError(.outputFailed, "The record file \(path) is not a regular file (a folder, FIFO or device); give a file path for --record.")
        }
        // O_NONBLOCK: a FIFO swapped in after the check fails to open instead of waiting for a reader.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard descriptor >= 0 else {
            throw APNsCredentialError(.outputFailed, "Cannot write the record file \(path) (\(String(cString: strerror(errno)))); check the folder exists and is writable.")
        }
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(descriptor)
            throw APNsCredentialError(.outputFailed, "The record file \(path) is not a regular file (a folder, FIFO or device); give a file path for --record.")
        }
        file = Locked((FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), 0))
    }

    deinit { close() }

    package func record(apnsID: String, token: APNsDeviceToken, topic: String?, pushType: String?, payloadBytes: Int,
                       connection: Int, protocolName: String, identifier: UInt32? = nil, device: DeviceVerdict? = nil,
                       tokenQuirks: [ProviderTokenQuirk] = []) {
        var fields: [(String, JSONValue)] = [
            ("apns_id", .string(apnsID)), ("token", .string(token.hex)),
            ("topic", topic.map(JSONValue.string) ?? .null), ("push_type", pushType.map(JSONValue.string) ?? .null),
            ("payload_bytes", .int(payloadBytes)), ("connection", .int(connection)), ("protocol", .string(protocolName)),
        ]
        if let identifier { fields.append(("identifier", .int(Int(identifier)))) }
        if let device {
            // What a device would do with it (docs/lint.md): never a reason the answer differed.
            fields.append(("lint", .array(device.rules.map(JSONValue.string))))
            fields.append(("device", device.mark.map(JSONValue.string) ?? .null))
        }
        // Token auth: shapes of the provider token APNs serves though its documentation does
        // not show them (apns-protocol.md §1): accepted, and said.
        if !tokenQuirks.isEmpty { fields.append(("token_marks", ProviderTokenQuirk.json(tokenQuirks))) }
        write(fields)
    }

    /// A broadcast accepted for a channel (apns-protocol.md §8): `protocol` "broadcast",
    /// `channel` and `bundle_id` instead of `token` and `topic`.
    package func recordBroadcast(apnsID: String, bundleID: String, channel: String, payloadBytes: Int, connection: Int) {
        write([("apns_id", .string(apnsID)), ("channel", .string(channel)), ("bundle_id", .string(bundleID)),
               ("push_type", .string("liveactivity")), ("payload_bytes", .int(payloadBytes)), ("connection", .int(connection)),
               ("protocol", .string("broadcast"))])
    }

    /// A channel management call APNs would have answered with success (apns-protocol.md §8):
    /// `protocol` "channels", `operation` (create, read, delete, list), `bundle_id`, `channel`
    /// (null for list), `status`, `request_id` (the client's `apns-request-id`, or null),
    /// `message_storage_policy` (create and read), `channel_count` (list), `connection` (the
    /// management port's). Refused calls are not recorded, as refused notifications are not.
    package func recordChannelCall(_ call: ChannelCall, connection: Int) {
        var fields: [(String, JSONValue)] = [
            ("request_id", call.requestID.map(JSONValue.string) ?? .null), ("operation", .string(call.operation.rawValue)),
            ("bundle_id", .string(call.bundleID)), ("channel", call.channel.map(JSONValue.string) ?? .null), ("status", .int(call.status)),
        ]
        if let policy = call.messageStoragePolicy { fields.append(("message_storage_policy", .int(policy))) }
        if let count = call.channelCount { fields.append(("channel_count", .int(count))) }
        fields += [("connection", .int(connection)), ("protocol", .string("channels"))]
        write(fields)
    }

    private func write(_ fields: [(String, JSONValue)]) {
        var line = JSONValue.object(fields).serialized()
        line.append(0x0A)
        file.withLock { file in
            // Under the lock: lines from several connections never interleave.
            try? file.handle.write(contentsOf: line)
            file.count += 1
        }
    }

    /// Forces the lines to stable storage (they are in the kernel already).
    package func close() {
        file.withLock { try? $0.handle.synchronize() }
    }
}

/// A channel management call the mock answered with success, as `--record` writes it.
package struct ChannelCall: Sendable, Equatable {
    package enum Operation: String, Sendable {
        case create, read, delete, list
    }

    package let operation: Operation
    package let bundleID: String
    package let channel: String?
    package let status: Int
    package let requestID: String?
    package var messageStoragePolicy: Int?
    package var channelCount: Int?
}

extension ProviderTokenQuirk {
    /// `[{"mark": id, "note": sentence}]`, as the record and the inbox show them.
    package static func json(_ quirks: [ProviderTokenQuirk]) -> JSONValue {
        .array(quirks.map { .object([("mark", .string($0.rawValue)), ("note", .string($0.sentence))]) })
    }
}
