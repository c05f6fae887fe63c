// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import APNsMock
import APNsMockInbox
import APNsProtocol
import APNsTransport
import ArgumentParser
import Foundation

/// `apnskit mock serve`: the local gateway in the foreground until SIGINT/SIGTERM (exit 130/143,
/// as every command that a signal ends).
struct MockServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a local APNs gateway: HTTP/2 provider API, legacy binary gateway and feedback service.",
        discussion: """
        Clients trust it with --ca-file DIR/ca-bundle.pem and authenticate with certificates from \
        `mock issue` or .p8 keys from `mock issue --auth-key`. Every accepted notification can be \
        recorded (--record, JSON lines). Faults are injected on request, for reliability tests.

        Examples:
          apnskit mock serve --ca mock-ca
          apnskit mock serve --ca mock-ca --port 0 --ports-file ports.json --record accepted.jsonl -q
          apnskit mock serve --ca mock-ca --fail-rate 503:0.05 --goaway-after 1000 --drop-after 500
          apnskit mock serve --ca mock-ca --ui-port 8025 --webhook http://127.0.0.1:9000/hook
          (then: apnskit mock faults set --ui http://127.0.0.1:8025 --fail-rate 503:1.0, and mock faults clear)
        """
    )

    @Option(help: "The mock CA folder made by `apnskit mock ca`.")
    var ca: String

    @Option(help: "sandbox or production: which gateway to play (certificates of the other environment get BadCertificateEnvironment).")
    var environment: String = "sandbox"

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "HTTP/2 provider API port (0: any free port).")
    var port: Int = 2197

    @Option(name: .customLong("legacy-port"), help: "Legacy binary gateway port (0: any free port).")
    var legacyPort: Int = 2195

    @Option(name: .customLong("feedback-port"), help: "Feedback service port (0: any free port).")
    var feedbackPort: Int = 2196

    @Option(name: .customLong("channels-port"), help: "Also serve the broadcast channel management API on this port (0: any free port); broadcasts go to the provider API port.")
    var channelsPort: Int?

    @Flag(name: .customLong("no-legacy"), help: "Do not run the legacy binary gateway.")
    var noLegacy = false

    @Flag(name: .customLong("no-feedback"), help: "Do not run the feedback service.")
    var noFeedback = false

    @Option(name: .customLong("ports-file"), help: "Write the ports actually bound as JSON, for scripts.")
    var portsFile: String?

    @Option(help: "Device registry JSON: known tokens, their topics and environments, unregistered ones.")
    var registry: String?

    @Option(help: "Append every accepted notification to this file as JSON lines.")
    var record: String?

    @Option(name: .customLong("max-streams"), help: "SETTINGS_MAX_CONCURRENT_STREAMS to announce.")
    var maxStreams: UInt32 = 1000

    @Option(name: .customLong("max-channels"), help: "Broadcast channels per bundle id (Apple's limit: 10,000); creates beyond it get CannotCreateChannelConfig.")
    var maxChannels: Int = ChannelStore.appleLimit

    @Option(name: .customLong("max-channels-total"), help: "Broadcast channels over all bundle ids; creates beyond it get CannotCreateChannelConfig.")
    var maxChannelsTotal: Int = ChannelStore.defaultTotalLimit

    @Option(name: .customLong("max-connections"), help: "Connections open at once, over all ports; more are closed at once, with a log line.")
    var maxConnections: Int = MockGateway.defaultMaxConnections

    @OptionGroup var faults: RuntimeFaultOptions

    @Option(name: .customLong("idle-timeout"), help: "Send GOAWAY IdleTimeout to connections idle this many seconds, then close them (0: never).")
    var idleTimeout: Double = GatewayFaults.defaultIdleTimeout

    @Option(name: .customLong("max-connections-per-peer"), help: "Of --max-connections, at most this many from one address.")
    var maxConnectionsPerPeer: Int = MockGateway.defaultMaxConnectionsPerPeer

    @Option(help: "Seed for --fail-rate draws.")
    var seed: UInt64 = 1

    @Flag(name: .customLong("no-lint"), help: "Do not mark accepted notifications with the payload lint's verdict in the record and the inbox.")
    var noLint = false

    @Flag(name: .shortAndLong, help: "No per-connection log lines.")
    var quiet = false

    @OptionGroup var inbox: InboxOptions

    @OptionGroup var webhook: WebhookOptions

    @OptionGroup var revocation: RevocationServeOptions

    func validate() throws {
        guard APNsEnvironment(rawValue: environment) != nil else { throw ValidationError("--environment must be sandbox or production.") }
        guard maxChannels >= 0 else { throw ValidationError("--max-channels must be 0 or more.") }
        guard maxChannelsTotal >= 0 else { throw ValidationError("--max-channels-total must be 0 or more.") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1.") }
        guard maxConnectionsPerPeer >= 1 else { throw ValidationError("--max-connections-per-peer must be at least 1.") }
        guard idleTimeout >= 0, idleTimeout.isFinite else { throw ValidationError("--idle-timeout must be 0 (never) or a number of seconds.") }
        try inbox.validate()
        try webhook.validate()
        try revocation.validate()
        for (name, value) in [("--port", port), ("--legacy-port", legacyPort), ("--feedback-port", feedbackPort), ("--channels-port", channelsPort ?? 0)] where value < 0 || value > 65_535 {
            throw ValidationError("\(name) must be a port number (0 for any free port).")
        }
    }

    func run() async throws {
        let authority = try MockCA.load(from: ca)
        var configuration = MockGateway.Configuration()
        configuration.host = host
        configuration.port = port
        configuration.legacyPort = noLegacy ? nil : legacyPort
        configuration.feedbackPort = noFeedback ? nil : feedbackPort
        configuration.channelsPort = channelsPort
        configuration.recordPath = record
        configuration.api.environment = APNsEnvironment(rawValue: environment)!
        configuration.api.registry = try registry.map(DeviceRegistry.load)
        configuration.api.faults = try faults.faults()
        configuration.api.faults.maxConcurrentStreams = maxStreams
        configuration.api.faults.seed = seed
        configuration.api.faults.idleTimeoutSeconds = idleTimeout
        configuration.maxConnections = maxConnections
        configuration.maxConnectionsPerPeer = maxConnectionsPerPeer
        configuration.connectionLimitHint = "--max-connections allows more"
        configuration.connectionsPerPeerHint = "--max-connections-per-peer allows more"
        configuration.api.channelLimit = maxChannels
        configuration.api.channelTotalLimit = maxChannelsTotal
        checkOpenFileLimit()
        // Before anything listens: a signal from then on stops the gateway cleanly.
        let interruption = Interruption.install()
        let quiet = self.quiet
        // The webhook is fed by the inbox's store (the same entries, the same ids), which is
        // made for it even without --ui-port (then keeping one entry: nobody reads it).
        let delivery = try webhook.start()
        let store = inbox.makeStore(webhook: delivery)
        configuration.api.inbox = store
        configuration.api.lint = !noLint
        let revocationService: (server: RevocationServer, url: String)?
        do {
            revocationService = try await revocation.start(caFolder: ca, authority: authority)
        } catch {
            _ = await delivery?.stop(flushingFor: 0)
            throw error
        }
        let gateway: MockGateway
        do {
            gateway = try MockGateway(ca: authority, caFolder: ca, configuration: configuration,
                                      // Log lines repeat peers' text (a client certificate's
                                      // subject, a protocol error): control characters escaped.
                                      log: { line in if !quiet { Output.note(ControlCharacters.hexEscaped(line)) } },
                                      warn: { line in Output.note(ControlCharacters.hexEscaped(line)) })
        } catch let error as APNsCredentialError {
            await revocationService?.server.stop()
            _ = await delivery?.stop(flushingFor: 0)
            throw error
        } catch {
            await revocationService?.server.stop()
            _ = await delivery?.stop(flushingFor: 0)
            throw CommandFailure(message: "Cannot start the mock gateway on \(host): \(error); choose other ports (0 picks free ones).", status: ExitStatus.network)
        }
        // After the gateway: its API changes the gateway's faults (PUT /api/faults).
        let webInbox: (server: InboxServer, token: String?)?
        do {
            if let store { webInbox = try await inbox.start(store: store, faults: gateway.handler, webhook: delivery) } else { webInbox = nil }
        } catch {
            gateway.stop()
            await revocationService?.server.stop()
            _ = await delivery?.stop(flushingFor: 0)
            throw error
        }
        let bundle = "\(ca)/\(MockCALayout.bundle)"
        Output.line("apnskit mock gateway (\(environment)) listening on \(host)")
        Output.line("  provider API (HTTP/2): \(host):\(gateway.providerPort)")
        if let port = gateway.legacyPort { Output.line("  legacy binary gateway: \(host):\(port)") }
        if let port = gateway.feedbackPort { Output.line("  feedback service:      \(host):\(port)") }
        if let port = gateway.channelsPort { Output.line("  channel management:    \(host):\(port)") }
        Output.line("  CA for clients:        \(bundle) (--ca-file)")
        Output.line("  token-auth keys:       \(AuthKeyRegistry.folderName)/ in \(ca)")
        if let record { Output.line("  recording to:          \(record)") }
        if let webInbox { Output.line("  inbox (web UI):        \(inbox.url(port: webInbox.server.port, token: webInbox.token))\(webInbox.token == nil ? "" : " (beyond this machine: every request needs this token)")") }
        if let revocationService { Output.line("  revocation (OCSP/CRL): \(revocationService.url)") }
        if let delivery { Output.line("  webhook:               POST \(delivery.configuration.url) (queue \(delivery.configuration.queueLimit), \(delivery.configuration.retries) retries)") }
        // The lines are out before the ports file exists: a script that waits for the file
        // and then reads them finds them all.
        fflush(nil)
        if let portsFile {
            let json = JSONValue.object([
                ("provider", .int(gateway.providerPort)),
                ("legacy", gateway.legacyPort.map(JSONValue.int) ?? .null),
                ("feedback", gateway.feedbackPort.map(JSONValue.int) ?? .null),
                ("channels", gateway.channelsPort.map(JSONValue.int) ?? .null),
                ("ui", webInbox.map { .int($0.server.port) } ?? .null),
                ("ui_token", webInbox?.token.map(JSONValue.string) ?? .null),
                ("revocation", revocationService.map { .int($0.server.port) } ?? .null),
                ("ca_file", .string(bundle)),
            ])
            // With the inbox's access token in it, the file is as secret as the token (0600).
            try SecureFileWriter.write(json.serialized() + [0x0A], to: portsFile, sensitivity: webInbox?.token == nil ? .public : .secret, force: true)
        }
        let signal = await interruption.wait()
        // Every record line went to the kernel with its own write(2) before its answer; stop
        // closes the record (fsync) before the summary says how many there are.
        gateway.stop()
        // Then the webhook delivers what waits, for a bounded time (the inbox still answers meanwhile).
        let webhookStats = await delivery?.stop(flushingFor: WebhookOptions.flushSeconds)
        await webInbox?.server.stop()
        await revocationService?.server.stop()
        let recorded = gateway.recorder.map { " (\($0.count) record line(s)\(record.map { " in \($0)" } ?? ""))" } ?? ""
        Output.note("apnskit mock gateway stopped by \(interruption.signalName)\(recorded).")
        if let webhookStats { Output.note(WebhookOptions.summary(webhookStats)) }
        throw ExitCode(128 + signal)
    }
}

extension MockServeCommand {
    /// Descriptors the gateway needs besides its connections: standard streams, listeners,
    /// the event loop's pipe, the record file, the runtime's own. 16 at rest (measured); 24
    /// leaves a little room and still lets the default 1,000 connections fit `ulimit -n` 1024.
    static let reservedDescriptors = 24

    /// Raises the soft open-file limit to what --max-connections needs, and warns when the
    /// hard limit does not allow it: connections beyond it wait in the listen queue (the
    /// gateway logs when accept() runs out of descriptors) instead of being refused.
    func checkOpenFileLimit() {
        let needed = maxConnections + Self.reservedDescriptors
        let available = OpenFileLimit.raise(toAtLeast: needed)
        guard available < needed else { return }
        Output.warning("the open-file limit (ulimit -n) is \(available), enough for about \(max(0, available - Self.reservedDescriptors)) connections, not --max-connections \(maxConnections); raise it with ulimit -n or lower --max-connections.")
    }
}
