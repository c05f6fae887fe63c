// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMockInbox
import ArgumentParser
import Foundation

/// `mock serve`'s webhook flags: POST every answered request's inbox entry to a receiver.
struct WebhookOptions: ParsableArguments {
    @Option(help: ArgumentHelp("POST each answered request's inbox entry (JSON) to this http:// or https:// URL, in order.", valueName: "URL"))
    var webhook: String?

    @Option(name: .customLong("webhook-ca-file"), help: ArgumentHelp("CA certificates (PEM) an https webhook's certificate is checked against (default: the system's).", valueName: "FILE"))
    var caFile: String?

    @Option(name: .customLong("webhook-queue"), help: "Entries waiting for the webhook at most; more are dropped (counted).")
    var queue: Int = WebhookDelivery.defaultQueueLimit

    @Option(name: .customLong("webhook-retries"), help: "Retries of a POST that failed to connect, timed out, or got 5xx or 429 (waits 0.1 s, doubling, at most 5 s).")
    var retries: Int = WebhookDelivery.defaultRetries

    /// How long SIGINT/SIGTERM gives the queue to drain before the rest is counted dropped:
    /// enough for thousands of POSTs to a receiver on this machine, short enough for a CI
    /// step's stop (which usually waits 10 s before SIGKILL).
    static let flushSeconds = 5.0

    func validate() throws {
        if let webhook, WebhookDelivery.Address(webhook) == nil {
            throw ValidationError("--webhook '\(webhook)' is not an http:// or https:// URL with a host, e.g. http://127.0.0.1:9000/hook.")
        }
        if caFile != nil, webhook.flatMap(WebhookDelivery.Address.init)?.tls != true {
            throw ValidationError("--webhook-ca-file needs an https:// --webhook URL.")
        }
        guard queue >= 1 else { throw ValidationError("--webhook-queue must be at least 1.") }
        guard (0...100).contains(retries) else { throw ValidationError("--webhook-retries must be from 0 to 100.") }
        if webhook == nil, queue != WebhookDelivery.defaultQueueLimit || retries != WebhookDelivery.defaultRetries {
            throw ValidationError("--webhook-queue and --webhook-retries need --webhook URL.")
        }
    }

    /// The delivery thread, or nil without --webhook. Drops are logged at most once a second.
    /// An unreadable --webhook-ca-file is exit 3.
    func start() throws -> WebhookDelivery? {
        guard let webhook, let url = WebhookDelivery.Address(webhook) else { return nil }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw CommandFailure(message: "Cannot read --webhook-ca-file \(caFile); give a PEM file of CA certificates.", status: ExitStatus.input)
        }
        var configuration = WebhookDelivery.Configuration(url: url)
        configuration.queueLimit = queue
        configuration.retries = retries
        configuration.caFile = caFile
        return WebhookDelivery(configuration: configuration) { stats in
            Output.note("webhook \(url): \(stats.dropped) entr\(stats.dropped == 1 ? "y" : "ies") dropped so far (queue full: \(stats.droppedQueueFull), failed: \(stats.droppedFailed))\(Self.lastFailure(stats, url: url)).")
        }
    }

    /// The summary line at shutdown.
    static func summary(_ stats: WebhookDelivery.Stats) -> String {
        "webhook: \(stats.delivered) delivered, \(stats.maybeDelivered) maybe delivered (posted whole, no answer), \(stats.dropped) dropped (queue full: \(stats.droppedQueueFull), failed: \(stats.droppedFailed), still queued at stop: \(stats.droppedAtStop)), \(stats.retried) retries."
    }

    /// "; last: the receiver answered 500" and the like.
    static func lastFailure(_ stats: WebhookDelivery.Stats, url: WebhookDelivery.Address) -> String {
        guard let last = stats.lastFailure else { return "" }
        if let status = last.status { return "; last: the receiver answered \(status)" }
        switch last.failure {
        case .plain(.unreachable(let code))?: return "; last: cannot connect (\(String(cString: strerror(code))))"
        case .plain(.noAnswer(let seconds, let received))?:
            return "; last: no \(received > 0 ? "complete " : "")answer within \(Int(seconds)) s\(received > 0 ? " (\(received) bytes came)" : "")"
        case .plain(.closedWithoutAnswer(let code))?:
            return "; last: the receiver closed the connection without answering\(code == 0 ? "" : " (\(String(cString: strerror(code))))")"
        case .plain(.cutShort(let received))?: return "; last: the receiver closed the connection after \(received) bytes of its answer"
        case .plain(.abandoned)?: return "; last: no answer before the stop's flush time ran out"
        case .plain(.unresolvable)?: return "; last: cannot resolve \(url.host)"
        case .plain(.notHTTP)?: return "; last: the answer was not HTTP"
        case .plain(.tooLarge)?: return "; last: the answer was larger than 1 MiB"
        case .plain(.closedBeforeRequest)?: return "; last: the receiver closed the connection before the request was sent"
        case .plain(.noSocket(let code))?: return "; last: no socket (\(String(cString: strerror(code))))"
        case .transport(let error)?:
            let sentence = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
            let hint = if case .untrustedServer = error.kind { " (the receiver's CA goes in --webhook-ca-file)" } else { "" }
            return "; last: " + sentence.prefix(1).lowercased() + sentence.dropFirst() + hint
        case nil: return ""
        }
    }
}
