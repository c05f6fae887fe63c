// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation
import Synchronized

/// The mock's HTTP/2 provider API: every request is judged as APNs judges it (apns-protocol.md
/// §1) and answered with APNs' statuses, reasons and headers.
///
/// Order of checks: path, method and header syntax (`RequestValidator`, shared with the
/// sender); credentials (client certificate: environment, topics; or provider token:
/// signature, key, age, update rate); topic and push type; the device registry; injected
/// faults; then acceptance, which is recorded.
///
/// Runs on the event loop thread (the fast path); per-connection state sits behind a lock
/// only so the type is honestly `Sendable`.
package final class ProviderAPIHandler: Sendable {
    package struct Settings: Sendable {
        package var environment: APNsEnvironment = .sandbox
        package var registry: DeviceRegistry?
        package var authKeys = AuthKeyRegistry()
        package var faults = GatewayFaults()
        /// APNs refuses a new provider token on a connection less than 20 minutes after the
        /// previous one (TooManyProviderTokenUpdates).
        package var minimumTokenUpdateInterval: TimeInterval = 20 * 60
        /// Streams offered to a connection without a client certificate (token auth) until a
        /// request with a valid token succeeds; then `faults.maxConcurrentStreams` (§1).
        package var tokenConnectionInitialStreams: UInt32 = 1
        /// Broadcast channels per bundle id (Apple: 10,000, `ChannelStore.appleLimit`).
        package var channelLimit = ChannelStore.appleLimit
        /// Channels over all bundle ids (`ChannelStore.totalLimit`).
        package var channelTotalLimit = ChannelStore.defaultTotalLimit
        /// Told about every answered request (the inbox web UI); nil: nothing is made for it.
        package var inbox: (any InboxSink)?
        /// Lint accepted notifications for the record and the inbox (docs/lint.md); off
        /// (`mock serve --no-lint`) for throughput runs: the marks cost a JSON parse each.
        package var lint = true
        package init() {}
    }

    /// One connection's state: a class, referred to while one request is judged, and only
    /// ever reached under the lock of `books`, which holds it.
    final class ConnectionState {
        var requests = 0
        /// Requests since the faults in force were set (`Books.faultsVersion`): a run-time
        /// `drop_after N` drops a connection's N-th request from then on, also on a connection
        /// already past N requests.
        var requestsUnderFaults = 0
        var faultsVersion = 0
        /// The client certificate's reading, for a certificate connection.
        let certificateInfo: APNsCertificateInfo?
        /// `certificateInfo != nil`, as a flag: testing the optional copied (and destroyed)
        /// the whole certificate reading, twice per request.
        let hasCertificate: Bool
        /// The provider token in use: the whole `authorization` value it came in, so the next
        /// request's header is compared as it is, without cutting the token out of it again.
        var token: (authorization: String, claims: ProviderTokenClaims, since: Date)?
        /// The key id of the first token accepted here: APNs ties a connection to it, and a
        /// token of any other key is UnrelatedKeyIdInToken (§8).
        var keyID: String?
        /// `settings.authKeys.entries[keyID]`, looked up once when the token was accepted
        /// instead of hashing the key id again for every request's topic check.
        var key: AuthKeyRegistry.Entry?
        var goneAway = false
        var lastActivity = Date()
        /// A token connection's stream limit has been raised (after its first success).
        var streamsRaised = false
        /// The previous request's header values as Strings: the next request's equal ones are
        /// these again (a client repeats its credential and topic), not new copies. Unchecked:
        /// reached only under the books' lock, and the validator that borrows it reaches no
        /// connection state (the runtime's check was some 80 instructions per request).
        @exclusivity(unchecked) var headerStrings = RequestValidator.HeaderStrings()
        /// The success answer's headers, rewritten as bytes for every request: no array of
        /// pairs and no String for the unique id per answer. The transport submits an answer
        /// and lets it go before the next request arrives, so this is unique again by then and
        /// refilled in place (a held answer, `--delay-ms`, makes the next one copy it once).
        /// Unchecked, as `headerStrings`.
        @exclusivity(unchecked) var answerFields = HTTP2HeaderFields()

        init(certificateInfo: APNsCertificateInfo?) {
            self.certificateInfo = certificateInfo
            hasCertificate = certificateInfo != nil
        }
    }

    private let settings: Settings
    private let recorder: NotificationRecorder?
    private let log: @Sendable (String) -> Void
    /// Everything a request changes, behind one lock.
    /// Internal, not private: `report(_:_:management:to:)` (the inbox) reads the identity.
    struct Books {
        var connections: [Int: ConnectionState] = [:]
        /// The connection of the previous request: a connection sends its requests in bursts,
        /// so most requests find their state here without hashing into `connections`.
        var recent: (key: Int, state: ConnectionState)?
        var random: SplitMix64
        /// apns-id and apns-unique-id values, made under the same lock (no second lock per id).
        var ids = MessageIDGenerator()
        /// Tokens answered 410 since start, handed to the feedback service.
        var unregisteredSeen: [FeedbackTuple] = []
        /// The faults in force: `settings.faults` at start, replaced at run time by
        /// `replaceFaults` (`PUT /api/faults`). Read under this lock, which every request takes
        /// anyway, so changing them costs a request nothing more.
        var faults: GatewayFaults
        /// Counts `replaceFaults` calls: a connection that sees a new version starts counting
        /// its requests under the new faults from zero.
        var faultsVersion = 0
        /// The failure rates that are not zero, in draw order (worked out when the faults are
        /// set: most runs have none, and then no request looks any up).
        var failureDraws: [(status: Int, rate: Double)]
    }

    let books: Locked<Books>
    /// Channel management and broadcasts (§8).
    private let broadcasts: BroadcastAPI
    /// Lint marks for accepted notifications (docs/lint.md); used only with a record or an inbox.
    let deviceJudge = DeviceJudge()
    /// Provider and channel connections the gateway saw end, counted by reason
    /// (`GET /api/stats`' `connections_closed`); the gateway fills it.
    package let closedConnections = ClosedConnectionCounts()
    /// Whether `deviceJudge` can have a verdict to hand over (lint on, and a record or an
    /// inbox to show it): without either, a request does not touch the judge's lock.
    private let judges: Bool

    package init(settings: Settings, recorder: NotificationRecorder?, log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.recorder = recorder
        self.log = log
        books = Locked(Books(random: SplitMix64(seed: settings.faults.seed), faults: settings.faults, failureDraws: settings.faults.failureDraws))
        broadcasts = BroadcastAPI(store: ChannelStore(limit: settings.channelLimit, totalLimit: settings.channelTotalLimit))
        judges = settings.lint && (recorder != nil || settings.inbox != nil)
    }

    /// The HTTP2Server loop handler: the provider API port, or with `management` the channel
    /// management port (§8), which answers only `/1/apps/...` (and the provider port never).
    package func handle(_ request: HTTP2Request, management: Bool = false) -> HTTP2Server.Reply {
        let (response, verdict, delay) = books.withLock { books in
            (decide(request, management: management, &books), judges ? deviceJudge.takePending() : nil, books.faults.delayMilliseconds)
        }
        if let inbox = settings.inbox { report(request, response, verdict, lint: settings.lint, management: management, to: inbox) }
        if delay > 0 {
            return .after(seconds: Double(delay) / 1000, response)
        }
        return .now(response)
    }

    /// Under the lock.
    private func decide(_ request: HTTP2Request, management: Bool, _ books: inout Books) -> HTTP2Response {
        // Each port numbers its connections from 1: the management port's are kept apart.
        let state = connection(request, key: management ? -request.connectionID : request.connectionID, &books)
        state.requests += 1
        if state.faultsVersion != books.faultsVersion {
            state.faultsVersion = books.faultsVersion
            state.requestsUnderFaults = 0
        }
        state.requestsUnderFaults += 1
        let now = Date()
        state.lastActivity = now
        var response = answer(request, management: management, state, now: now, &books)
        finish(state, goAwayAfter: books.faults.goAwayAfter, &response)
        return response
    }

    /// The answer to one request, before `finish`. Under the lock.
    private func answer(_ request: HTTP2Request, management: Bool, _ state: ConnectionState, now: Date, _ books: inout Books) -> HTTP2Response {
        // Read in place (`books` is the lock's own value): a local copy of the faults retained
        // and released their tables for every request.
        if books.faults.dropAfter > 0, state.requestsUnderFaults == books.faults.dropAfter, books.faults.dropMode == .unprocessed {
            var response = HTTP2Response(status: 500)
            response.afterward = .dropWithoutResponse
            return response
        }
        if let route = BroadcastAPI.route(request.path) ?? (management ? .unknown : nil) {
            let apnsID = Self.echoedID(request) ?? books.ids.next()
            return broadcast(request, route, management: management, state, now: now, apnsID: apnsID, &books)
        }
        let validated: ValidatedRequest
        switch Self.validate(request, &state.headerStrings) {
        case .failure(let error): return reject(error.reason, apnsID: Self.echoedID(request) ?? books.ids.next())
        case .success(let value): validated = value
        }
        // The validator found the one apns-id, checked it is a canonical UUID and made it lower
        // case: echoed from there, without searching the headers again.
        let apnsID = validated.apnsID ?? books.ids.next()
        let topic: String
        switch authorize(validated, state, now: now) {
        case .failure(let error): return reject(error.reason, apnsID: apnsID)
        case .success(let resolved): topic = resolved
        }
        if let reason = checkDevice(validated.token, topic: topic, pushType: validated.pushType) {
            let device = settings.registry?.devices[validated.token]
            if let at = reason == .unregistered ? device?.unregisteredAt : (reason == .expiredToken ? device?.expiredAt : nil) {
                return gone(reason, since: at, validated.token, apnsID: apnsID, &books)
            }
            return reject(reason, apnsID: apnsID)
        }
        if !books.faults.unregistered.isEmpty, let at = books.faults.unregistered[validated.token] {
            return gone(.unregistered, since: at, validated.token, apnsID: apnsID, &books)
        }
        if let reason = injectedFailure(&books) { return reject(reason, apnsID: apnsID) }
        // Accepted: what a device would do with it, for the record and the inbox (lint never
        // changes the answer). Worked out here for the record, and for Live Activities (the
        // judge keeps their timestamps); the inbox lints the rest when it is read.
        let verdict = !settings.lint || (recorder == nil && (settings.inbox == nil || validated.pushType != .liveactivity)) ? nil
            : deviceJudge.judge(payload: request.body, token: validated.token, topic: topic, pushType: validated.pushType,
                                priority: validated.priority.rawValue, collapseID: validated.collapseID)
        recorder?.record(apnsID: apnsID, token: validated.token, topic: topic, pushType: validated.pushType?.rawValue,
                         payloadBytes: validated.payloadSize, connection: request.connectionID, protocolName: "h2", device: verdict,
                         tokenQuirks: state.token?.claims.quirks ?? [])
        state.answerFields.removeAll()
        state.answerFields.append(name: "apns-id", value: apnsID)
        if settings.environment == .sandbox {
            // Formatted straight into the answer's bytes (docs/apns-protocol.md: sandbox only).
            state.answerFields.append(name: "apns-unique-id", valueCount: MessageIDGenerator.textLength) { books.ids.write(to: $0) }
        }
        state.answerFields.append(name: "server", value: Self.serverHeader.value)
        // One expression: an answer built in a variable, changed and returned was copied.
        return HTTP2Response(status: 200, fields: state.answerFields, afterward: dueDrop(request, state, books.faults) ?? .keepOpen,
                             announceMaxConcurrentStreams: raisedStreamLimit(state))
    }

    /// `--drop-after N` (modes accepted and answered): the N-th request of a connection (counted
    /// from when the faults were set), once
    /// accepted (and recorded), ends the connection, unanswered or answered: what to do after
    /// the answer then, else nil.
    private func dueDrop(_ request: HTTP2Request, _ state: ConnectionState, _ faults: GatewayFaults) -> ConnectionAction? {
        guard faults.dropAfter > 0, state.requestsUnderFaults == faults.dropAfter else { return nil }
        log("connection #\(request.connectionID): dropping after request \(state.requests) (\(faults.dropMode.rawValue))")
        return faults.dropMode == .answered ? .close : .dropWithoutResponse
    }

    /// A token connection starts with 1 stream; its first success raises the limit (§1): the
    /// limit to announce with this answer, else nil.
    private func raisedStreamLimit(_ state: ConnectionState) -> UInt32? {
        guard !state.hasCertificate, !state.streamsRaised else { return nil }
        state.streamsRaised = true
        return settings.faults.maxConcurrentStreams
    }

    /// Channel management and broadcasts: the bundle id in the path stands for the topic the
    /// credentials must cover; the rest is `BroadcastAPI`'s.
    private func broadcast(_ request: HTTP2Request, _ route: BroadcastAPI.Route, management: Bool, _ state: ConnectionState,
                           now: Date, apnsID: String, _ books: inout Books) -> HTTP2Response {
        guard route.isManagement == management, let bundle = route.bundle else {
            return BroadcastAPI.reject(.badPath, [("apns-id", apnsID)])
        }
        if let error = authorize(bundle: bundle, authorization: request.header("authorization"), state, now: now) {
            return BroadcastAPI.reject(error.reason, [("apns-id", apnsID)])
        }
        // Rate limits and outages hit broadcasts and channel calls too (once the credentials
        // pass), so clients' retries are tested on them as on device sends.
        if let reason = injectedFailure(&books) { return BroadcastAPI.reject(reason, [("apns-id", apnsID)]) }
        var response = broadcasts.answer(request, route, apnsID: apnsID) { accepted in
            switch accepted {
            case .broadcast(let bundle, let channel, let bytes):
                recorder?.recordBroadcast(apnsID: apnsID, bundleID: bundle, channel: channel, payloadBytes: bytes, connection: request.connectionID)
            case .channelCall(let call):
                recorder?.recordChannelCall(call, connection: request.connectionID)
            }
        }
        response.headers.append(Self.serverHeader)
        if response.status < 300 {
            if let raised = raisedStreamLimit(state) { response.announceMaxConcurrentStreams = raised }
            if let drop = dueDrop(request, state, books.faults) { response.afterward = drop }
        }
        return response
    }

    /// A failure `faults.failureRates` draws for this request (429, 500 or 503), or nil.
    private func injectedFailure(_ books: inout Books) -> APNsReason? {
        for (status, rate) in books.failureDraws where Double.random(in: 0..<1, using: &books.random) < rate {
            return status == 429 ? .tooManyRequests : (status == 500 ? .internalServerError : .serviceUnavailable)
        }
        return nil
    }

    /// On every answer, as APNs identifies itself.
    private static let serverHeader = (name: "server", value: "apnskit-mock")

    /// `RequestValidator`'s checks on the request's header bytes, as received: only the values
    /// it hands on become Strings (`strings`: the connection's previous ones, reused).
    private static func validate(_ request: HTTP2Request, _ strings: inout RequestValidator.HeaderStrings) -> Result<ValidatedRequest, APNsReasonError> {
        request.withReceivedFields { bytes, fields in
            var slots = RequestValidator.HeaderSlots()
            for field in fields { slots.add(name: field.name(in: bytes), value: field.valueRange) }
            return RequestValidator.validate(method: request.method, path: request.path, bytes: bytes, slots: slots, body: request.body,
                                             strings: &strings)
        }
    }

    /// The client's `apns-id` when it is a canonical UUID, in lower case as APNs echoes it (a
    /// request refused before its headers were read, or a broadcast).
    private static func echoedID(_ request: HTTP2Request) -> String? {
        guard let id = request.header("apns-id"), RequestValidator.isCanonicalUUID(id) else {
            return nil
        }
        return lowercasedID(id)
    }

    /// A canonical UUID as APNs echoes it: lower case (a copy only when it has upper case).
    /// Read in place: walking the UTF-8 view with an iterator cost 1% of the mock's CPU.
    private static func lowercasedID(_ id: String) -> String {
        let upper = id.utf8.withContiguousStorageIfAvailable { $0.contains { $0 &- UInt8(ascii: "A") < 26 } }
            ?? id.utf8.contains { $0 &- UInt8(ascii: "A") < 26 }
        return upper ? id.lowercased() : id
    }

    /// Applies GOAWAY-after-N to any answer.
    /// `--goaway-after N`: once a connection has made N requests, its next answer that keeps
    /// the connection open says GOAWAY after it (a connection being dropped, `dueDrop`, sends
    /// none first). In place: taking the answer and handing it back copied it.
    private func finish(_ state: ConnectionState, goAwayAfter: Int, _ response: inout HTTP2Response) {
        guard goAwayAfter > 0, state.requests >= goAwayAfter, !state.goneAway, case .keepOpen = response.afterward else { return }
        state.goneAway = true
        response.afterward = .goAway(code: 0, debug: #"{"reason":"Shutdown"}"#)
    }

    private func connection(_ request: HTTP2Request, key: Int, _ books: inout Books) -> ConnectionState {
        if let recent = books.recent, recent.key == key { return recent.state }
        if let state = books.connections[key] {
            books.recent = (key, state)
            return state
        }
        let info = request.clientCertificate?.apnsInfo()
        let state = ConnectionState(certificateInfo: info)
        if let info {
            log("connection #\(request.connectionID) from \(request.remoteAddress): certificate \(info.commonName ?? info.subject)")
        } else {
            log("connection #\(request.connectionID) from \(request.remoteAddress): no client certificate (token auth)")
        }
        books.connections[key] = state
        books.recent = (key, state)
        return state
    }

    /// Credentials and topic: the topic to deliver to, or APNs' reason for refusing.
    private func authorize(_ validated: ValidatedRequest, _ state: ConnectionState, now: Date) -> Result<String, APNsReasonError> {
        if state.hasCertificate, let info = state.certificateInfo {
            guard info.isAPNs else { return .failure(.init(.badCertificate)) }
            guard info.environments.contains(settings.environment) else { return .failure(.init(.badCertificateEnvironment)) }
            let topic: String
            if let given = validated.topic {
                topic = given
            } else if let topics = info.topics {
                // A certificate with several topics (every one the portal issues today) needs
                // apns-topic; with exactly one, that one is implied.
                guard topics.count == 1 else { return .failure(.init(.missingTopic)) }
                topic = topics[0].topic
            } else if let bundle = info.bundleID {
                topic = bundle + (validated.pushType?.topicSuffix ?? "")
            } else {
                return .failure(.init(.missingTopic))
            }
            guard info.covers(topic: topic) == true else { return .failure(.init(.topicDisallowed)) }
            return checkPushType(topic, validated.pushType)
        }
        if let error = authenticate(validated.authorization, state, now: now) { return .failure(error) }
        guard let topic = validated.topic else { return .failure(.init(.missingTopic)) }
        if let key = state.key, !key.allows(topic: topic) { return .failure(.init(.topicDisallowed)) }
        return checkPushType(topic, validated.pushType)
    }

    /// Credentials for a bundle id (channel management, broadcasts): the certificate must
    /// cover it, or the token's key must be allowed to push to it.
    private func authorize(bundle: String, authorization: String?, _ state: ConnectionState, now: Date) -> APNsReasonError? {
        if state.hasCertificate, let info = state.certificateInfo {
            guard info.isAPNs else { return .init(.badCertificate) }
            guard info.environments.contains(settings.environment) else { return .init(.badCertificateEnvironment) }
            return info.covers(topic: bundle) == true ? nil : .init(.topicDisallowed)
        }
        if let error = authenticate(authorization, state, now: now) { return error }
        if let key = state.key, !key.allows(topic: bundle) { return .init(.topicDisallowed) }
        return nil
    }

    /// The provider token of a connection without a certificate: signature, key, team, scope,
    /// age and update rate, as APNs checks them (§1, §8). Nil when it is accepted.
    private func authenticate(_ authorization: String?, _ state: ConnectionState, now: Date) -> APNsReasonError? {
        guard let authorization else { return .init(.missingProviderToken) }
        guard authorization.hasPrefix("bearer ") else { return .init(.invalidProviderToken) }
        // The connection's accepted token again (nearly every request): its fields are read in
        // place; binding the whole tuple copied its Strings and claims per request.
        if state.token?.authorization == authorization, let issuedAt = state.token?.claims.issuedAt {
            return now.timeIntervalSince1970 - Double(issuedAt) > 3600 ? .init(.expiredProviderToken) : nil
        }
        let token = String(authorization.dropFirst("bearer ".count))
        switch ProviderTokenVerifier.verify(token, keys: settings.authKeys.publicKeys, now: now) {
        case .failure(.expired): return .init(.expiredProviderToken)
        case .failure(.badSignature) where signedByKeyOfOtherEnvironment(token): return .init(.badEnvironmentKeyInToken)
        case .failure: return .init(.invalidProviderToken)
        case .success(let claims):
            guard let key = settings.authKeys.entries[claims.keyID] else { return .init(.invalidProviderToken) }
            // A token claiming another team than the key's is simply not valid (§8).
            guard key.teamID == claims.teamID else { return .init(.invalidProviderToken) }
            if let allowed = key.environments, !allowed.contains(settings.environment) { return .init(.badEnvironmentKeyIdInToken) }
            if key.revoked { return .init(.forbidden) }
            if let first = state.keyID, first != claims.keyID { return .init(.unrelatedKeyIdInToken) }
            if let previous = state.token, now.timeIntervalSince(previous.since) < settings.minimumTokenUpdateInterval {
                return .init(.tooManyProviderTokenUpdates)
            }
            state.token = (authorization, claims, now)
            state.keyID = claims.keyID
            state.key = key
            return nil
        }
    }

    /// A token whose `kid` names a key valid here but whose signature was made by a key of the
    /// team limited to the other environment (BadEnvironmentKeyInToken, §8). Only on that
    /// failure path, so accepted tokens pay nothing for it.
    private func signedByKeyOfOtherEnvironment(_ token: String) -> Bool {
        guard let keyID = ProviderTokenVerifier.keyID(of: token) else { return false }
        return settings.authKeys.entries.values.contains { entry in
            guard let allowed = entry.environments, !allowed.contains(settings.environment) else { return false }
            if case .success = ProviderTokenVerifier.verify(token, keys: [keyID: entry.publicKey], maximumAge: .infinity) { return true }
            return false
        }
    }

    /// Push types that need a topic suffix (voip -> `.voip`, ...) must be sent to such a topic.
    private func checkPushType(_ topic: String, _ pushType: APNsPushType?) -> Result<String, APNsReasonError> {
        if let suffix = pushType?.topicSuffix, !suffix.isEmpty, !topic.hasSuffix(suffix) { return .failure(.init(.badTopic)) }
        return .success(topic)
    }

    private func checkDevice(_ token: APNsDeviceToken, topic: String, pushType: APNsPushType?) -> APNsReason? {
        // Never a real device, registry or not: Apple answers it BadDeviceToken, and a
        // handshake check (verify's probe) reads that answer as "credentials accepted" (§1).
        if token.bytes.allSatisfy({ $0 == 0 }) { return .badDeviceToken }
        guard let registry = settings.registry else { return nil }
        guard let device = registry.devices[token], device.environment == settings.environment else { return .badDeviceToken }
        if let registered = device.topic {
            let base = pushType.map { topic.hasSuffix($0.topicSuffix) ? String(topic.dropLast($0.topicSuffix.count)) : topic } ?? topic
            if registered != topic && registered != base { return .deviceTokenNotForTopic }
        }
        if device.unregisteredAt != nil { return .unregistered }
        if device.expiredAt != nil { return .expiredToken }
        return nil
    }

    /// 410 with the time APNs learned the token was no longer valid, in milliseconds; the
    /// token is also handed to the feedback service.
    private func gone(_ reason: APNsReason, since at: Int, _ token: APNsDeviceToken, apnsID: String, _ books: inout Books) -> HTTP2Response {
        var response = reject(reason, apnsID: apnsID)
        response.body = JSONValue.object([("reason", .string(reason.rawValue)), ("timestamp", .int(at))]).serialized()
        books.unregisteredSeen.append(FeedbackTuple(timestamp: UInt32(clamping: at / 1000), token: token.bytes))
        return response
    }

    private func reject(_ reason: APNsReason, apnsID: String) -> HTTP2Response {
        HTTP2Response(status: reason.status ?? 400, headers: [("apns-id", apnsID), ("content-type", "application/json"), Self.serverHeader],
                      body: JSONValue.object([("reason", .string(reason.rawValue))]).serialized())
    }

    /// Connections with no request for `seconds`; they are forgotten here, and the caller
    /// sends them GOAWAY IdleTimeout (a connection that closed meanwhile is simply gone).
    package func takeIdleConnections(olderThan seconds: Double, now: Date = Date()) -> [Int] {
        books.withLock { books in
            let idle = books.connections.filter { now.timeIntervalSince($0.value.lastActivity) >= seconds }.map(\.key)
            for id in idle { books.connections[id] = nil }
            if let recent = books.recent, idle.contains(recent.key) { books.recent = nil }
            // Negative keys are the management port's connections (`decide`); only the
            // provider port's get GOAWAY IdleTimeout.
            return idle.filter { $0 > 0 }
        }
    }

    /// Tokens this instance answered 410 for (the feedback service reports them too).
    package func takeUnregistered() -> [FeedbackTuple] {
        books.withLock { books in
            defer { books.unregisteredSeen.removeAll() }
            return books.unregisteredSeen
        }
    }
}
