// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import APNsProtocol
import APNsSender
import CLIFormats
import APNsTransport
import ArgumentParser
import Foundation

/// `apnskit push`: one notification (`--token`) or a batch (`--tokens FILE|-`) through the
/// HTTP/2 provider API (certificate or token auth) or, with `--legacy`, the binary gateway.
/// Thin: parse, load credentials, build the feed, hand it to `APNsClient`/`LegacySender`, print.
struct Push: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send one notification or a batch of them.",
        discussion: """
        IDENTITY is a combined PEM, a certificate plus its key, or a .p12 (certificate auth); or use \
        --auth-key AuthKey_KEYID.p8 --team-id T (token auth; --key-id defaults from the file name) \
        with --topic. The topic defaults to the certificate's bundle id plus the push type's suffix \
        (.voip, ...). --tokens reads one token per line, optionally followed by a JSON payload for \
        that token; '#' lines and blank lines are skipped. --results writes one JSON line per \
        notification, --invalid-tokens the tokens to remove: those APNs refused for good (Unregistered, \
        ExpiredToken, BadDeviceToken) and lines whose token is malformed, and --invalid-tokens-json says per token when it \
        became invalid and whether it is safe to delete (a --tokens line may give, after the token, when the app last \
        registered it: 2026-11-20T10:00:00Z); these files appear only when the batch is over. --diagnose-tokens sends a \
        BadDeviceToken notification once more to the other environment to say whose token it is: where it is valid \
        there, the notification is delivered there. \
        With --legacy a notification counts as delivered when no error response came before we \
        closed the connection after a quiet period: the legacy protocol has no success acks. \
        Exit codes: 0 all delivered, 1 some rejected or invalid, 2 usage, 3 unreadable input, \
        4 gateway unreachable, TLS failure or notifications that could not be sent.
        """
    )

    @OptionGroup var credentials: CredentialOptions
    @OptionGroup var gateway: GatewayOptions

    @Option(help: ArgumentHelp("One device token (hex).", valueName: "TOKEN"))
    var token: String?

    @Option(help: ArgumentHelp("A file with one token per line (optionally followed by a JSON payload); - for stdin.", valueName: "FILE"))
    var tokens: String?

    @OptionGroup var content: PayloadOptions

    @Option(name: .customLong("apns-id"), help: "apns-id: a canonical UUID (single notification only).") var apnsID: String?

    @Option(help: "Connections to open.") var connections = 1
    @Option(name: .customLong("event-loops"), help: "Threads the connections run on (connection n on thread n mod N; at most one per core).")
    var eventLoops = 1
    @Option(help: "Requests in flight per connection.") var concurrency = 100

    @Option(help: ArgumentHelp("Write one JSON line per notification here.", valueName: "FILE")) var results: String?
    @Option(name: .customLong("invalid-tokens"), help: ArgumentHelp("Write the tokens to remove here, one per line.", valueName: "FILE"))
    var invalidTokens: String?
    @Flag(help: "Replace --results/--invalid-tokens/--invalid-tokens-json files that exist.") var force = false
    @Flag(name: .customLong("no-lint"), help: "Send without the payload lint (docs/lint.md): errors refuse the run, warnings print.")
    var noLint = false

    @Flag(help: "Use the legacy binary gateway (gateway[.sandbox].push.apple.com:2195).") var legacy = false
    @Option(name: .customLong("legacy-format"), help: "Legacy frame format: simple, enhanced or framed.")
    var legacyFormat: LegacyFormat = .framed

    @OptionGroup var newer: BroadcastPushOptions

    @OptionGroup var triage: TokenTriageOptions

    @OptionGroup var output: OutputOptions

    var service: GatewayService { legacy ? .legacy : .provider }
    var endpoint: Endpoint { gateway.endpoint(for: service) }

    func validate() throws {
        try credentials.validate(for: service)
        try gateway.validate(for: service)
        try validateNewer()
        try triage.validate(legacy: legacy, usesGateway: gateway.gateway != nil, deviceTokens: !newer.isBroadcast && !newer.printCurl,
                            singleToken: token != nil)
        if credentials.authKey != nil && content.topic == nil && !newer.isBroadcast { throw ValidationError("Token auth needs --topic (the app's bundle id).") }
        if !newer.isBroadcast && (token == nil) == (tokens == nil) { throw ValidationError("Give exactly one of --token TOKEN or --tokens FILE.") }
        if let token {
            do { _ = try APNsDeviceToken(parsing: token) } catch { throw ValidationError("--token: \(error)") }
        }
        if tokens != nil && apnsID != nil { throw ValidationError("--apns-id applies to a single notification; drop it with --tokens.") }
        if tokens == "-" && content.payload == "-" { throw ValidationError("--tokens and --payload cannot both read stdin.") }
        try PoolFlags.validate(connections: connections, eventLoops: eventLoops, concurrency: concurrency)
        if let apnsID, !RequestValidator.isCanonicalUUID(apnsID) { throw ValidationError("--apns-id must be a canonical lower-case UUID.") }
    }

    func run() async throws {
        output.apply()
        // Outputs first: a run that cannot write its results must not send anything.
        try SecureFileWriter.preflight([("--results", results), ("--invalid-tokens", invalidTokens),
                                        ("--invalid-tokens-json", triage.invalidTokensJSON)], force: force)
        let resultsFile = try results.map { try AtomicFile(path: $0, sensitivity: .public, force: force) }
        let invalidFile = try invalidTokens.map { try AtomicFile(path: $0, sensitivity: .public, force: force) }
        let invalidJSONFile = try triage.invalidTokensJSON.map { try AtomicFile(path: $0, sensitivity: .public, force: force) }
        let sink = PushSink(results: resultsFile, invalidTokens: invalidFile, invalidTokensJSON: invalidJSONFile, legacy: legacy)
        do {
            try await send(sink)
        } catch {
            sink.discard()
            throw error
        }
    }

    private func send(_ sink: PushSink) async throws {
        let authentication: APNsClient.Authentication
        var certificateIdentity: APNsIdentity?
        switch try credentials.load() {
        case .certificate(let identity):
            certificateIdentity = identity
            authentication = .certificate(identity)
        case .token(let signer, _):
            authentication = .token(signer)
        }
        let template = try makeTemplate(bundleID: certificateIdentity?.certificate.subject.first("UID"))
        try lintBeforeSending(template)
        try credentials.checkKeyScope(environment: APNsEnvironment(rawValue: gateway.environment.rawValue) ?? .sandbox,
                                      topic: newer.isBroadcast ? newer.bundleID : template.topic)
        if newer.isBroadcast || newer.printCurl {
            try await sendNewer(template: template, authentication: authentication, certificateBundle: certificateIdentity?.certificate.subject.first("UID"), sink: sink)
            return
        }
        let trust = try gateway.trust()
        let timeout = gateway.timeout(for: service)

        let legacySender = certificateIdentity.map {
            LegacySender(endpoint: endpoint, identity: $0, trust: trust, options: LegacySender.Options(format: legacyFormat, connectTimeout: timeout))
        }
        let check: PushFeed.Check
        let lint = self
        if legacy, let legacySender {
            check = { notification in legacySender.localProblem(notification) ?? lint.lintProblem(notification) }
        } else {
            check = { notification in notification.localProblem() ?? lint.lintProblem(notification) }
        }
        let feed: PushFeed
        let onInvalid: PushFeed.OnInvalid = { sink.recordInvalid(index: $0, token: $1, reason: $2, removable: $3) }
        if let token {
            let parsed: APNsDeviceToken
            do { parsed = try APNsDeviceToken(parsing: token) } catch {
                throw ValidationError("--token: \(error)")
            }
            var single = template
            single.token = parsed
            if let problem = check(single) { throw ValidationError("Cannot send this notification: \(problem).") }
            feed = PushFeed(token: parsed, registeredAt: triage.registrationTime, template: template, check: check, onInvalid: onInvalid)
        } else {
            let reader: LineReader
            do { reader = try LineReader(path: tokens!) } catch {
                throw CommandFailure(message: "Cannot read the token file: \(error) Check --tokens.", status: ExitStatus.input)
            }
            feed = PushFeed(reader: reader, template: template, check: check, onInvalid: onInvalid)
        }

        let start = Date()
        let progress = PushProgress()
        if tokens != nil { progress.start(sink, since: start) }
        // SIGINT/SIGTERM: the first stops reading input and lets what is in flight finish (each
        // request within --timeout), the second gives in-flight requests up; either way every
        // result is written and the summary printed, then the exit status is 130/143.
        let interruption = Interruption.install()
        interruption.onSignal { _ in feed.stop() }
        let summary: APNsBatchSummary
        if legacy, let legacySender {
            interruption.onSecondSignal {
                // The legacy protocol cannot take frames back: write what is known, and go.
                progress.stop()
                let unwritten = sink.commit()
                Output.note("apnskit: stopped at once by a second signal after \(sink.counts.done) results; frames in flight have no result.\(unwritten.isEmpty ? "" : " Not written: \(unwritten.joined(separator: " "))")")
                Foundation.exit(interruption.exitStatus ?? 130)
            }
            summary = await legacySender.send(feed) { sink.record($0, registeredAt: feed.takeRegistration($0.index)) }
        } else {
            let client = APNsClient(endpoint: endpoint, trust: trust, authentication: authentication,
                                    connections: connections, eventLoops: eventLoops, concurrency: concurrency,
                                    connectTimeout: timeout, requestTimeout: timeout, tokenDiagnosis: triage.target(gateway))
            interruption.onSignal { _ in Task { await client.close() } }
            interruption.onSecondSignal { Task { await client.close(cancellingInFlight: true) } }
            summary = await client.send(feed: feed) { sink.record($0, registeredAt: feed.takeRegistration($0.index)) }
            await client.close()
        }
        progress.stop()
        let unwritten = sink.commit()

        let report = PushReport(summary: summary, invalid: sink.invalid, seconds: Date().timeIntervalSince(start), legacy: legacy,
                                diagnosedAgainst: triage.diagnoseTokens ? gateway.environment.other : nil)
        let single = token != nil
        switch output.format {
        case .json:
            Output.line(report.json(result: single ? sink.single : nil, invalidLine: nil))
        case .text:
            if single, let result = sink.single { Output.line(PushReport.describe(result)) } else { Output.line(report.text) }
        }
        if !unwritten.isEmpty {
            // After the summary, and with the delivery's exit code: a script that reran the
            // batch because the results file is missing would send every notification again.
            Output.note("apnskit: the batch was sent (summary above); not written: \(unwritten.joined(separator: " ")) Do not send it again; free space and keep the summary.")
        }
        if let readError = feed.readError {
            throw CommandFailure(message: "Reading \(tokens ?? "the tokens") failed after \(report.total) notifications: \(readError)", status: ExitStatus.input)
        }
        if let interrupted = interruption.exitStatus {
            Output.note("apnskit: interrupted by \(interruption.signalName): input not read further; \(summary.notSent) not sent, \(summary.cancelled) cancelled after they were written (they may be delivered). Every result above and in --results is final.")
            throw ExitCode(interrupted)
        }
        let status = report.exitStatus
        // The connection failure's sentence is `verify`'s for the same failure (one
        // classification, ConnectionFailure), and so is the exit code.
        if let failure = summary.connectionFailure, status == ExitStatus.network || summary.credentialsRejected {
            throw CommandFailure(message: failure, status: status)
        }
        if status == ExitStatus.network {
            throw CommandFailure(message: "\(summary.failed) notification\(summary.failed == 1 ? "" : "s") could not be sent to \(endpoint); see the results.",
                                 status: status)
        }
        if status != ExitStatus.success { throw ExitCode(status) }
    }

    /// Headers and default payload every notification of this run shares.
    private func makeTemplate(bundleID: String?) throws -> APNsNotification {
        try content.template(bundleID: bundleID, livePayload: try newer.liveActivityPayload(title: content.title, body: content.alert),
                             apnsID: apnsID.flatMap(UUID.init(uuidString:)))
    }
}

extension APNsPushType: ExpressibleByArgument {}
extension LegacyFormat: ExpressibleByArgument {}
