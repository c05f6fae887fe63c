// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation

/// The faults a running gateway can change without a restart (`PUT /api/faults` on the
/// inbox's port, `apnskit mock faults set`), so one test run can walk a client through an
/// outage: failure rates, GOAWAY after N requests, dropped connections, slow answers. The
/// rest of `GatewayFaults` (stream limit, idle timeout, seed) shapes the listeners and the
/// draws at start and stays as `mock serve` set it.
extension GatewayFaults {
    /// A fault value outside what the gateway accepts: `message` is one sentence naming the
    /// field (the API's and the flag's name) and what it takes.
    package struct Invalid: Error, Sendable, Equatable {
        package let message: String
        package init(_ message: String) { self.message = message }
    }

    /// Why a minute: APNs clients give up on an answer after 10 to 30 seconds; a longer delay
    /// tests nothing more and only holds streams and timers.
    package static let maxDelayMilliseconds = 60_000

    /// The fields `PUT /api/faults` takes and `GET /api/faults` shows, with their `mock serve` flags.
    package static let runtimeFields = ["fail_rates", "goaway_after", "drop_after", "drop_mode", "delay_ms", "unregister"]

    /// Why 10,000: a test fleet's devices many times over; each rule is a dictionary entry
    /// looked up once per request (only when there are any).
    package static let maxUnregistered = 10_000

    /// The non-zero failure rates in draw order (`injectableStatusesInOrder`, so a seed repeats a run).
    var failureDraws: [(status: Int, rate: Double)] {
        Self.injectableStatusesInOrder.compactMap { status in failureRates[status].flatMap { $0 > 0 ? (status, $0) : nil } }
    }

    /// Checks the run-time fields, the same rules for the flags and the API.
    package func validateRuntime() throws(Invalid) {
        for (status, rate) in failureRates {
            guard Self.injectableStatuses.contains(status) else {
                throw Invalid("fail rate status \(status) cannot be injected; use 429, 500 or 503.")
            }
            guard rate >= 0, rate <= 1 else { throw Invalid("fail rate \(rate) for \(status) must be a fraction from 0 to 1, e.g. 0.05.") }
        }
        guard goAwayAfter >= 0 else { throw Invalid("goaway_after (--goaway-after) must be 0 (never) or a number of requests.") }
        guard dropAfter >= 0 else { throw Invalid("drop_after (--drop-after) must be 0 (never) or a request number.") }
        guard (0...Self.maxDelayMilliseconds).contains(delayMilliseconds) else {
            throw Invalid("delay_ms (--delay-ms) must be from 0 to \(Self.maxDelayMilliseconds) milliseconds.")
        }
        guard unregistered.count <= Self.maxUnregistered else {
            throw Invalid("unregister (--unregister) names \(unregistered.count) tokens, more than \(Self.maxUnregistered).")
        }
    }

    /// These faults with the run-time fields of `other`: what a `PUT /api/faults` leaves.
    package func replacingRuntime(with other: GatewayFaults) -> GatewayFaults {
        var faults = self
        faults.failureRates = other.failureRates
        faults.goAwayAfter = other.goAwayAfter
        faults.dropAfter = other.dropAfter
        faults.dropMode = other.dropMode
        faults.delayMilliseconds = other.delayMilliseconds
        // A token already unregistered keeps the time it was (its 410s stay the same).
        faults.unregistered = other.unregistered.reduce(into: [:]) { result, rule in
            result[rule.key] = unregistered[rule.key] ?? rule.value
        }
        return faults
    }

    /// The run-time fields as `GET /api/faults` shows them (and `PUT` takes them).
    package var runtimeJSON: JSONValue {
        .object([
            ("fail_rates", .object(Self.injectableStatusesInOrder.compactMap { status in
                failureRates[status].flatMap { $0 > 0 ? (String(status), .double($0)) : nil }
            })),
            ("goaway_after", .int(goAwayAfter)),
            ("drop_after", .int(dropAfter)),
            ("drop_mode", .string(dropMode.rawValue)),
            ("delay_ms", .int(delayMilliseconds)),
            ("unregister", .array(unregistered.keys.map(\.hex).sorted().map(JSONValue.string))),
        ])
    }

    /// Reads a `PUT /api/faults` body: a JSON object with any of `runtimeFields`; a field left
    /// out is off (the body replaces every run-time fault, so `{}` clears them).
    package static func parseRuntime(_ body: [UInt8]) throws(Invalid) -> GatewayFaults {
        guard JSONSyntax.isObject(body) else {
            throw Invalid("The body is not a JSON object; send e.g. {\"fail_rates\": {\"503\": 1.0}, \"delay_ms\": 200}, or {} to clear.")
        }
        do {
            let faults = try JSONDecoder().decode(RuntimeBody.self, from: Data(body)).faults
            try faults.validateRuntime()
            return faults
        } catch let error as Invalid {
            throw error
        } catch {
            throw Invalid("The body is not a JSON object of faults; send e.g. {\"fail_rates\": {\"503\": 1.0}}, or {} to clear.")
        }
    }

    /// The body, field by field, with a sentence for the first field of the wrong type or
    /// name. JSONDecoder is strict where it matters here: `true` is not a number, 1.5 not a
    /// whole number.
    private struct RuntimeBody: Decodable {
        var faults = GatewayFaults()

        struct Key: CodingKey {
            let stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                func value<T: Decodable>(_ type: T.Type, _ sentence: String) throws -> T {
                    do { return try container.decode(type, forKey: key) } catch { throw Invalid(sentence) }
                }
                switch key.stringValue {
                case "fail_rates":
                    let rates = try value([String: Double].self, "fail_rates must be an object of status to fraction, e.g. {\"503\": 0.5}.")
                    for (status, rate) in rates {
                        guard let code = Int(status) else {
                            throw Invalid("fail_rates key \"\(status)\" must be a status: 429, 500 or 503.")
                        }
                        faults.failureRates[code] = rate
                    }
                case "goaway_after": faults.goAwayAfter = try value(Int.self, "goaway_after must be a whole number of requests.")
                case "drop_after": faults.dropAfter = try value(Int.self, "drop_after must be a whole number of requests.")
                case "delay_ms": faults.delayMilliseconds = try value(Int.self, "delay_ms must be a whole number of milliseconds.")
                case "drop_mode":
                    let text = try value(String.self, "drop_mode must be accepted, answered or unprocessed.")
                    guard let mode = DropMode(rawValue: text) else { throw Invalid("drop_mode must be accepted, answered or unprocessed.") }
                    faults.dropMode = mode
                case "unregister":
                    let now = Int(Date().timeIntervalSince1970 * 1000)
                    for text in try value([String].self, "unregister must be a list of device tokens (hex).") {
                        guard let token = try? APNsDeviceToken(parsing: text) else {
                            throw Invalid("unregister: '\(text.prefix(80))' is not a device token (hex digits).")
                        }
                        faults.unregistered[token] = now
                    }
                default:
                    throw Invalid("unknown field '\(key.stringValue)': use \(GatewayFaults.runtimeFields.joined(separator: ", ")).")
                }
            }
        }
    }
}

extension ProviderAPIHandler {
    /// The faults in force now.
    package var faults: GatewayFaults { books.withLock { $0.faults } }

    /// Replaces the run-time faults (`GatewayFaults.replacingRuntime`); the next request is
    /// judged by them. `drop_after N` counts each connection's requests from now (a connection
    /// already past N requests is dropped at its N-th from now, not never); `goaway_after N`
    /// counts from each connection's first request, so a connection already past N gets its
    /// GOAWAY with its next answer.
    package func replaceFaults(with runtime: GatewayFaults) {
        books.withLock { books in
            books.faults = books.faults.replacingRuntime(with: runtime)
            books.faultsVersion += 1
            books.failureDraws = books.faults.failureDraws
        }
    }
}
