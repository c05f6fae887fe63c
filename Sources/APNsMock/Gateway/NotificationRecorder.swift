import APNsCredentials
import APNsProtocol
import Foundation

/// Appends one JSON line per accepted notification to `--record FILE`, so a test can prove
/// that nothing was lost and nothing delivered twice. Lines are written as they are accepted
/// (a crash loses nothing already answered) and flushed on `close`.
///
/// Fields: `apns_id`, `token`, `topic`, `push_type`, `payload_bytes`, `connection`, `protocol`
/// ("h2", "legacy"), and for legacy frames `identifier`.
public final class NotificationRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    public private(set) var count = 0

    public init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw CredentialError(.outputFailed, "Cannot write the record file \(path); check the folder exists and is writable.")
        }
        self.handle = handle
    }

    deinit { close() }

    public func record(apnsID: String, token: DeviceToken, topic: String?, pushType: String?, payloadBytes: Int,
                       connection: Int, protocolName: String, identifier: UInt32? = nil) {
        var fields: [(String, JSONValue)] = [
            ("apns_id", .string(apnsID)), ("token", .string(token.hex)),
            ("topic", topic.map(JSONValue.string) ?? .null), ("push_type", pushType.map(JSONValue.string) ?? .null),
            ("payload_bytes", .int(payloadBytes)), ("connection", .int(connection)), ("protocol", .string(protocolName)),
        ]
        if let identifier { fields.append(("identifier", .int(Int(identifier)))) }
        var line = JSONValue.object(fields).serialized()
        line.append(0x0A)
        lock.lock()
        buffer += line
        count += 1
        if buffer.count >= 64 * 1024 { flushLocked() }
        lock.unlock()
    }

    public func flush() {
        lock.lock()
        flushLocked()
        lock.unlock()
    }

    public func close() {
        flush()
        try? handle.synchronize()
    }

    private func flushLocked() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}
