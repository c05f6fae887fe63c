// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsProtocol
import ArgumentParser
import Foundation
import OpenSSLCore

/// `apnskit mock faults set|show|clear`: a running mock's faults, through its inbox API
/// (`GET`/`PUT /api/faults`), so one test run can walk a client through an outage without
/// restarting the mock (docs/mock-gateway.md, "Faults at run time").
struct MockFaultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faults",
        abstract: "Show or change a running mock's faults (fail rates, GOAWAY, drops, delays) without a restart.",
        discussion: """
        The mock must run with --ui-port (its API serves the faults). Give it as --ui http://HOST:PORT or \
        --ports-file F, as for mock expect. Exit codes: 0 done, 2 usage (or values the mock refuses), \
        3 unreadable ports file, 4 the mock unreachable.

        Examples:
          apnskit mock faults set --ports-file ports.json --fail-rate 503:1.0
          apnskit mock faults show --ports-file ports.json
          apnskit mock faults clear --ports-file ports.json
        """,
        subcommands: [MockFaultsSetCommand.self, MockFaultsShowCommand.self, MockFaultsClearCommand.self]
    )
}

/// What the three subcommands share: where the mock is, and the answer shown.
struct FaultsTarget: ParsableArguments {
    @OptionGroup var inbox: InboxAddressOptions
    @Option(name: .customLong("ui-token"), help: ArgumentHelp("The inbox's access token (an inbox beyond this machine); --ports-file and a --ui URL with ?token= carry it already.", valueName: "TOKEN"))
    var uiToken: String?
    @Option(help: "Output format: text or json.") var format: OutputFormat = .text

    func client() throws -> InboxClient {
        var client = try inbox.client()
        if let uiToken { client.token = uiToken }
        return client
    }

    /// PUTs `faults` (or GETs them with nil) and prints the faults in force after.
    func exchange(putting faults: GatewayFaults?) throws {
        let client = try client()
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try faults.map { try client.putFaults(json: $0.runtimeJSON.serialized()) } ?? client.getFaults()
        } catch {
            throw CommandFailure(message: "\(error)", status: ExitStatus.network)
        }
        if answer.status == 404 {
            throw CommandFailure(message: "The inbox at \(client.display) serves no faults; is that an apnskit mock serve of this version?", status: ExitStatus.network)
        }
        let object = try client.object(answer, refused: "The mock refused the faults")
        if format == .json {
            Output.line(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
        } else {
            Output.line("Faults in force at \(client.display): \(Self.describe(object))")
        }
    }

    /// "fail 503 at 1.0, GOAWAY after 5, ..." or "none".
    static func describe(_ object: [String: Any]) -> String {
        var parts: [String] = []
        let rates = object["fail_rates"] as? [String: Any] ?? [:]
        for status in rates.keys.sorted() {
            // The inbox's answer, not ours: a rate past Int's range is shown, not converted.
            let percent = ((rates[status] as? NSNumber)?.doubleValue ?? 0) * 100
            parts.append("\(status) for \(Int(exactly: percent).map(String.init) ?? String(percent))% of valid requests")
        }
        if let value = object["goaway_after"] as? Int, value > 0 { parts.append("GOAWAY after \(value) requests") }
        if let value = object["drop_after"] as? Int, value > 0 { parts.append("drop at request \(value) (\(object["drop_mode"] as? String ?? "accepted"))") }
        if let value = object["delay_ms"] as? Int, value > 0 { parts.append("delay \(value) ms") }
        if let tokens = object["unregister"] as? [String], !tokens.isEmpty {
            parts.append("\(tokens.count) token\(tokens.count == 1 ? "" : "s") unregistered (\(tokens.prefix(3).map { String($0.prefix(16)) + "..." }.joined(separator: ", "))\(tokens.count > 3 ? ", ..." : ""))")
        }
        return ControlCharacters.hexEscaped(parts.isEmpty ? "none." : parts.joined(separator: ", ") + ".")
    }
}

struct MockFaultsSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Replace the mock's run-time faults: flags not given are off (mock serve's fault flags, same names).")
    @OptionGroup var target: FaultsTarget
    @OptionGroup var faults: RuntimeFaultOptions
    func run() throws { try target.exchange(putting: try faults.faults()) }
}

struct MockFaultsShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print the mock's faults in force.")
    @OptionGroup var target: FaultsTarget
    func run() throws { try target.exchange(putting: nil) }
}

struct MockFaultsClearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Turn every run-time fault off.")
    @OptionGroup var target: FaultsTarget
    func run() throws { try target.exchange(putting: GatewayFaults()) }
}
