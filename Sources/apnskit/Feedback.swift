// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import APNsProtocol
import APNsSender
import APNsTransport
import ArgumentParser
import Foundation

/// `apnskit feedback`: read the legacy feedback service. The client sends nothing; the server
/// streams `(timestamp, token)` tuples for devices that no longer take notifications, then
/// closes (and forgets them: the list is read once).
struct Feedback: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedback",
        abstract: "Read the legacy feedback service: tokens that stopped accepting notifications.",
        discussion: """
        Prints one line per tuple, "<ISO date> <hex token>", or JSON with --format json. The service \
        clears its list once read, so keep the output (-o FILE). \
        Exit codes: 0 read (also with no tuples), 2 usage, 3 identity or CA file unreadable, 4 could \
        not connect or the TLS handshake failed, 130/143 stopped by SIGINT/SIGTERM (the tuples read \
        until then are written).
        """
    )

    @OptionGroup var identity: IdentityOptions
    @OptionGroup var gateway: GatewayOptions

    @Option(name: [.short, .customLong("out")], help: ArgumentHelp("Write the list here instead of stdout.", valueName: "FILE"))
    var out: String?
    @Flag(help: "Replace the output file if it exists.") var force = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if identity.files.isEmpty { throw ValidationError("Give the identity (combined PEM, certificate + key, or .p12).") }
        try gateway.validate(for: .feedback)
    }

    func run() async throws {
        output.apply()
        if let out, out != "-" { try SecureFileWriter.preflight(out, force: force) }
        let loaded = try IdentityLoader.load(identity.files, passphrases: try identity.passin.supplier(), identity: identity.choice.selector)
        var tls = TLSConfiguration.client(identity: loaded, trust: try gateway.trust())
        tls.applicationProtocols = []
        // The service forgets what it sent: a signal stops the read, and what was read is
        // still written, summarized, and the exit status says it was cut short.
        let interruption = Interruption.install()
        let (bytes, cut) = try await Self.readAll(endpoint: gateway.endpoint(for: .feedback), tls: tls, timeout: gateway.timeout(for: .feedback),
                                                  interruption: interruption)
        let (tuples, remainder) = FeedbackTuple.decodeAll(bytes)
        if remainder > 0, !cut, interruption.signal == nil {
            Output.warning("The feedback service closed the connection in the middle of a tuple; \(remainder) trailing bytes were ignored.")
        }
        let text = output.format == .json ? Self.json(tuples) : Self.text(tuples)
        if let out, out != "-" {
            try SecureFileWriter.write(Array(text.utf8), to: out, sensitivity: .public, force: force)
            Output.note("Wrote \(tuples.count) feedback tuple\(tuples.count == 1 ? "" : "s") to \(out).")
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        if let status = interruption.exitStatus {
            let destination = out.flatMap { $0 == "-" ? nil : "in \($0)" } ?? "above"
            Output.note("Stopped by \(interruption.signalName) while reading the feedback service: the \(tuples.count) tuple\(tuples.count == 1 ? "" : "s") read until then are \(destination); the service may have had more, which it has now forgotten.")
            throw ExitCode(status)
        }
        if cut {
            throw CommandFailure(message: "The feedback service at \(gateway.endpoint(for: .feedback)) sent more than \(Self.maxTuples) tuples; apnskit stopped reading there and wrote the first \(tuples.count). A real service sends its list and closes: check the gateway.", status: ExitStatus.network)
        }
    }

    /// The most tuples one read keeps (38 bytes each on the wire: 3.8 MB). Apple's service sent
    /// its list and closed; a server that streams without end once took `feedback` to 14.4 GB
    /// in 60 seconds. The transport stops reading while we are behind, so past this bound
    /// nothing more is read at all.
    static let maxTuples = 100_000
    static let tupleSize = 38

    /// Everything the server sends until it closes, or the first `maxTuples` tuples' worth
    /// (`cut`: the server had more), or what came before `interruption`'s signal (which closes
    /// the connection, so the read ends with the bytes already received).
    static func readAll(endpoint: Endpoint, tls: TLSConfiguration, timeout: Double, interruption: Interruption) async throws -> (bytes: [UInt8], cut: Bool) {
        let client: TLSClient
        do {
            client = try await TLSClient.connect(to: endpoint, tls: tls, timeout: timeout)
        } catch let error as TransportError {
            throw CommandFailure(message: error.message, status: ExitStatus.network)
        }
        defer { client.close() }
        interruption.onSignal { _ in client.close() }
        var bytes: [UInt8] = []
        while true {
            do {
                guard let chunk = try await client.read(timeout: timeout) else { return (bytes, false) }
                bytes += chunk
                let bound = maxTuples * tupleSize
                if bytes.count > bound {
                    bytes.removeLast(bytes.count - bound)
                    return (bytes, true)
                }
            } catch let error as TransportError {
                switch error.kind {
                case .connectionClosed, .tls:
                    // Closed without close_notify: the service is done talking.
                    return (bytes, false)
                case _ where interruption.signal != nil:
                    return (bytes, false)
                default:
                    throw CommandFailure(message: "Reading the feedback service at \(endpoint) failed: \(error.message)", status: ExitStatus.network)
                }
            }
        }
    }

    static func text(_ tuples: [FeedbackTuple]) -> String {
        let formatter = ISO8601DateFormatter()
        return tuples.map { "\(formatter.string(from: Date(timeIntervalSince1970: Double($0.timestamp)))) \(Hex.encode($0.token))\n" }.joined()
    }

    static func json(_ tuples: [FeedbackTuple]) -> String {
        let formatter = ISO8601DateFormatter()
        let items: [JSONValue] = tuples.map {
            .object([("timestamp", .int(Int($0.timestamp))), ("date", .string(formatter.string(from: Date(timeIntervalSince1970: Double($0.timestamp))))),
                     ("token", .string(Hex.encode($0.token)))])
        }
        return String(decoding: JSONValue.object([("count", .int(tuples.count)), ("tuples", .array(items))]).serialized(), as: UTF8.self) + "\n"
    }
}
