// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMockInbox
import APNsProtocol
import ArgumentParser
import Foundation
import OpenSSLCore

/// `apnskit mock expect`: waits until the mock's inbox holds what a test expects (the
/// one-liner an app's UI test or a CI step runs after the backend sent), through the inbox's
/// long poll `GET /api/notifications/wait` (docs/mock-gateway.md, "Waiting for notifications").
struct MockExpectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expect",
        abstract: "Wait until the mock's inbox holds the notifications a test expects.",
        discussion: """
        Give the inbox as --ui http://HOST:PORT (what mock serve prints) or --ports-file F (mock serve's \
        --ports-file; its "ui" port on 127.0.0.1). Filters: --token and --topic (part of, any case), \
        --status (accepted, rejected or a number), --push-type, --contains (text anywhere: payload, reason, \
        ids). --count N waits for at least N matching entries (default 1); --since ID counts only entries \
        after that id. Exit codes: 0 found, 1 not found within --timeout (with what the inbox holds \
        instead), 2 usage, 3 unreadable ports file, 4 inbox unreachable.

        Examples:
          apnskit mock expect --ports-file ports.json --token 5e1f --status accepted --timeout 20
          apnskit mock expect --ui http://127.0.0.1:8025 --topic com.example.app --contains "Your order" --count 2
        """
    )

    @OptionGroup var inbox: InboxAddressOptions
    @Option(help: "Part of the device token (or channel id).") var token: String?
    @Option(help: "Part of the topic.") var topic: String?
    @Option(help: "accepted, rejected, or an HTTP status such as 410.") var status: String?
    @Option(name: .customLong("push-type"), help: "The apns-push-type exactly (none: requests without one).") var pushType: String?
    @Option(help: "Text anywhere in the entry (token, topic, reason, ids, payload).") var contains: String?
    @Option(help: "How many matching entries to wait for.") var count = 1
    @Option(help: "Count only entries with a larger id (an id from an earlier run).") var since = 0
    @Option(help: "Seconds to wait, at most 300.") var timeout = 30.0
    @Option(help: "Output format: text or json.") var format: OutputFormat = .text

    func validate() throws {
        if count < 1 { throw ValidationError("--count must be 1 or more.") }
        if since < 0 { throw ValidationError("--since must be an entry id, 0 or more.") }
        if !(0...300).contains(timeout) { throw ValidationError("--timeout must be from 0 to 300 seconds.") }
        if let status, status != "accepted", status != "rejected", Int(status) == nil {
            throw ValidationError("--status must be accepted, rejected or a number such as 410.")
        }
    }

    func run() throws {
        let client = try inbox.client()
        var parameters: [(String, String)] = [("count", String(count)), ("since", String(since)), ("timeout", String(timeout))]
        for (name, value) in [("token", token), ("topic", topic), ("status", status), ("push-type", pushType), ("q", contains)] {
            if let value { parameters.append((name, value)) }
        }
        // The wait answers at most `count` entries, or the list's default limit if that is more.
        let answer = try fetch(client, "/api/notifications/wait?" + Self.query(parameters), wait: timeout,
                               entries: max(count, InboxQuery.defaultLimit))
        let satisfied = answer["satisfied"] as? Bool ?? false
        let matched = answer["notifications"] as? [[String: Any]] ?? []
        if format == .json {
            Output.line(String(decoding: try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys, .prettyPrinted]), as: UTF8.self))
        }
        let wanted = "\(count) notification\(count == 1 ? "" : "s")\(describeFilters())"
        if satisfied {
            if format == .text {
                Output.line("Found \(wanted) in the inbox at \(client.display):")
                for entry in matched.prefix(count) { Output.line("  " + Self.describe(entry)) }
            }
            return
        }
        // Not there: what the inbox holds instead, newest first, is what the developer needs.
        let newest = (try? fetch(client, "/api/notifications?limit=5", wait: 0, entries: 5))?["notifications"] as? [[String: Any]] ?? []
        if format == .text {
            Output.line(matched.isEmpty ? "No entry matched." : "Matched only \(matched.count):")
            for entry in matched { Output.line("  " + Self.describe(entry)) }
            Output.line(newest.isEmpty ? "The inbox is empty." : "The inbox's newest entries:")
            for entry in newest { Output.line("  " + Self.describe(entry)) }
        }
        throw CommandFailure(message: "Expected \(wanted) within \(Self.seconds(timeout)); \(matched.count) arrived\(newest.isEmpty ? " and the inbox is empty" : " (the inbox's newest entries are listed above)"). Check the token, topic and that the backend sent to this mock.",
                             status: ExitStatus.problem)
    }

    private func fetch(_ client: InboxClient, _ path: String, wait: Double, entries: Int) throws -> [String: Any] {
        let answer: (status: Int, body: [UInt8])
        do { answer = try client.get(path, wait: wait, entries: entries) } catch {
            throw CommandFailure(message: "\(error)", status: ExitStatus.network)
        }
        return try client.object(answer)
    }

    private func describeFilters() -> String {
        let parts = [("token", token), ("topic", topic), ("status", status), ("push type", pushType), ("containing", contains.map { "\"\($0)\"" })]
            .compactMap { name, value in value.map { "\(name) \($0)" } }
        return (parts.isEmpty ? "" : " with " + parts.joined(separator: ", ")) + (since > 0 ? " after entry #\(since)" : "")
    }

    /// One entry in a line: id, status (and reason), push type, token, topic, the lint mark.
    static func describe(_ entry: [String: Any]) -> String {
        var text = "#\(entry["id"] as? Int ?? 0) \(entry["status"] as? Int ?? 0)"
        if let reason = entry["reason"] as? String { text += " \(reason)" }
        if let pushType = entry["push_type"] as? String { text += " \(pushType)" }
        if let token = entry["token"] as? String ?? entry["channel"] as? String { text += " token \(token.prefix(16))\(token.count > 16 ? "..." : "")" }
        if let topic = entry["topic"] as? String { text += " topic \(topic)" }
        if let device = entry["device"] as? String { text += " (on a device: \(device.prefix { $0 != ":" }))" }
        // Every field is what a client sent the mock (or the inbox says it did): text, not
        // terminal commands.
        return ControlCharacters.hexEscaped(text)
    }

    static func seconds(_ value: Double) -> String { value == value.rounded() ? "\(Int(value)) s" : "\(value) s" }

    /// URL query text: every byte but unreserved ones percent-encoded (a '+' is not a space).
    static func query(_ parameters: [(String, String)]) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        func encode(_ text: String) -> String {
            text.utf8.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
        }
        return parameters.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }
}
