// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol

/// Faults the mock gateway injects on purpose, so senders can be tested against the failures
/// real gateways produce: rate limits and outages, GOAWAY, dropped connections, slow answers,
/// a low stream limit, tokens gone Unregistered. All of it is set from `apnskit mock serve` flags.
package struct GatewayFaults: Sendable, Equatable {
    /// Fraction of otherwise valid requests answered with each status (429, 500, 503).
    package var failureRates: [Int: Double] = [:]
    /// Send GOAWAY after answering this many requests on a connection (0: never).
    package var goAwayAfter = 0
    /// End a connection at its N-th request (0: never), as `dropMode` says.
    package var dropAfter = 0
    package var dropMode: DropMode = .accepted
    /// Delay before every answer, in milliseconds.
    package var delayMilliseconds = 0
    /// Device tokens answered 410 Unregistered from now on, with the time (milliseconds since
    /// 1970) the rule was made: an app uninstalled while a client runs (`--unregister`,
    /// `PUT /api/faults` `unregister`). Checked after the registry, before the failure rates.
    package var unregistered: [APNsDeviceToken: Int] = [:]
    /// SETTINGS_MAX_CONCURRENT_STREAMS announced to clients.
    package var maxConcurrentStreams: UInt32 = 1000
    /// Seed for the failure-rate draws, so a run can be repeated exactly.
    package var seed: UInt64 = 1
    /// Send GOAWAY `{"reason":"IdleTimeout"}` to connections idle this long and close them
    /// (0: never), as APNs does to providers that connect and then send nothing; on the
    /// legacy port, close after this long without a byte. On by default: without it,
    /// connections that send nothing hold the gateway's slots for good (1,000 such
    /// connections refused every other client).
    package var idleTimeoutSeconds: Double = GatewayFaults.defaultIdleTimeout

    /// Why 60 seconds: nghttpd's default read timeout; a provider that means to send keeps
    /// its connection busy or pings it, and reconnecting after a minute of silence is cheap.
    package static let defaultIdleTimeout: Double = 60

    package enum DropMode: String, Sendable, CaseIterable {
        /// The request is accepted and recorded, then the connection closes unanswered: the
        /// sender cannot know, resends, and the record shows a counted duplicate.
        case accepted
        /// The request is answered, then the connection closes.
        case answered
        /// The connection closes before the request is processed.
        case unprocessed
    }

    package init() {}

    /// The statuses for which rates are accepted.
    package static let injectableStatuses: Set<Int> = [429, 500, 503]
    /// The same, in the order the failure rates are drawn (fixed, so a seed repeats a run).
    static let injectableStatusesInOrder = injectableStatuses.sorted()
}

/// A small deterministic PRNG (SplitMix64): fault draws must be repeatable across runs.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
