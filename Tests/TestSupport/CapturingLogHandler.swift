// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging

/// What a `CapturingLogHandler` saw: tests read what the library logged (it logs only to the
/// `Logger` it is given).
public final class LogRecords: @unchecked Sendable {
    // @unchecked: `records` only under `lock`.
    public struct Record: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: String
    }

    private let lock = NSLock()
    private var records: [Record] = []
    public init() {}
    public var all: [Record] { lock.withLock { records } }
    public func add(_ record: Record) { lock.withLock { records.append(record) } }
}

/// A swift-log handler that keeps every record in a `LogRecords`.
public struct CapturingLogHandler: LogHandler {
    public let records: LogRecords
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(_ records: LogRecords) { self.records = records }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        records.add(.init(level: event.level, message: event.message.description, metadata: "\(event.metadata ?? [:])"))
    }
}
