// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsProtocol
import ArgumentParser
import Foundation

/// The faults a running mock can change (`mock serve`'s flags, and `mock faults set`'s, which
/// replace them at run time through `PUT /api/faults`): one set of flag names and one check.
struct RuntimeFaultOptions: ParsableArguments {
    @Option(name: .customLong("fail-rate"), help: ArgumentHelp("Answer this fraction of valid requests (notifications, broadcasts, channel calls) with STATUS (429, 500, 503); repeatable.", valueName: "STATUS:FRACTION"))
    var failRates: [String] = []

    @Option(name: .customLong("goaway-after"), help: "Send GOAWAY after this many requests on a connection (0: never).")
    var goAwayAfter: Int = 0

    @Option(name: .customLong("drop-after"), help: "Drop each connection at its N-th request (0: never).")
    var dropAfter: Int = 0

    @Option(name: .customLong("drop-mode"), help: "accepted (record, then drop unanswered), answered (answer, then close), unprocessed (drop before processing).")
    var dropMode: String = "accepted"

    @Option(name: .customLong("delay-ms"), help: "Delay every answer by this many milliseconds (at most 60000).")
    var delayMilliseconds: Int = 0

    @Option(name: .customLong("unregister"), help: ArgumentHelp("Answer requests to this device token 410 Unregistered (with the time it was set), as after the app was uninstalled; repeatable (at most 10,000), or several separated by commas.", valueName: "TOKEN"))
    var unregister: [String] = []

    func validate() throws { _ = try faults() }

    /// The run-time fields of `GatewayFaults`, checked by the same rules as the API's.
    func faults() throws -> GatewayFaults {
        var faults = GatewayFaults()
        for text in failRates {
            let parts = text.split(separator: ":")
            guard parts.count == 2, let status = Int(parts[0]), GatewayFaults.injectableStatuses.contains(status),
                  let fraction = Double(parts[1]), fraction >= 0, fraction <= 1 else {
                throw ValidationError("--fail-rate '\(text)' must be STATUS:FRACTION with STATUS 429, 500 or 503 and FRACTION 0...1, e.g. 503:0.05.")
            }
            faults.failureRates[status] = fraction
        }
        guard let mode = GatewayFaults.DropMode(rawValue: dropMode) else { throw ValidationError("--drop-mode must be accepted, answered or unprocessed.") }
        faults.dropMode = mode
        faults.goAwayAfter = goAwayAfter
        faults.dropAfter = dropAfter
        faults.delayMilliseconds = delayMilliseconds
        let now = Int(Date().timeIntervalSince1970 * 1000)
        // Main merges repeated --unregister flags into one comma-separated list (Main.mergingRepeated).
        for text in unregister.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }) {
            guard let token = try? APNsDeviceToken(parsing: text) else {
                throw ValidationError("--unregister '\(text.prefix(80))' is not a device token; give its hex digits.")
            }
            faults.unregistered[token] = now
        }
        do {
            try faults.validateRuntime()
        } catch {
            // The API's sentence names the JSON field and the flag; the flag is what was given.
            throw ValidationError(error.message.replacingOccurrences(of: #"^[a-z_]+ \((--[a-z-]+)\)"#, with: "$1", options: .regularExpression))
        }
        return faults
    }
}
