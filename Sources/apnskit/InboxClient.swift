// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsMockInbox
import APNsTransport
import ArgumentParser
import Foundation
import OpenSSLCore

/// A request to the mock inbox's JSON API (`mock expect`, `mock faults`), through `PlainHTTP`,
/// with the sentences a user reads when the inbox cannot be reached.
struct InboxClient {
    let host: String
    let port: Int
    /// The inbox's access token (an inbox bound beyond loopback), sent as a bearer token.
    var token: String?

    /// An answer larger than this is refused: an entry is at most a few KB (a 5 KB payload as
    /// text), and `mock expect` asks for at most `--count` of them plus a handful.
    static let maxAnswer = 32 * 1024 * 1024
    /// JSON values (keys counted) an inbox entry holds at most, with room: its 26 fields and its lint marks. An answer
    /// with more values than its entries can hold is refused before it is parsed: Foundation
    /// spends about 200 bytes per value, so 31 MiB of `{},` once took `mock expect` 2 GB
    /// (issue 31). Within this bound parsing stays a small multiple of the answer's size.
    static let maxValuesPerEntry = 128
    /// And in all, whatever was asked for: 512 Ki values parse in about 100 MB (measured: 500,000
    /// `{}` took a peak of 124 MB), a small multiple of `maxAnswer`; an inbox entry has about
    /// 56, so this is some 9,000 entries.
    static let maxValues = 512 * 1024
    /// The seconds a request may take beyond the server's own wait (a long poll's timeout):
    /// connecting, sending and the whole answer.
    static let answerMargin = 10.0

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// From `http://HOST:PORT[/][?token=TOKEN]`, as `mock serve` prints it.
    init(url: String) throws {
        let items = URLComponents(string: url)?.queryItems ?? []
        let shown = ControlCharacters.hexEscaped(Self.redacted(url))
        if case .invalid(let written) = PortNumber.inURL(url) {
            throw Failure(description: "--ui \(shown) has the port \(ControlCharacters.hexEscaped(written)); a port is 1 to 65535, as mock serve prints it (http://HOST:PORT).")
        }
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host, !host.isEmpty,
              case .valid(let port) = PortNumber.inURL(url), components.path.isEmpty || components.path == "/",
              items.allSatisfy({ $0.name == "token" && $0.value?.isEmpty == false }) else {
            throw Failure(description: "--ui \(shown) is not an inbox address; give it as http://HOST:PORT (with ?token=TOKEN for an inbox beyond this machine), as mock serve prints it.")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        token = items.first?.value
    }

    /// `url` with everything after `?` replaced: a usage error repeats the URL, and its query
    /// may hold the inbox's access token.
    static func redacted(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        return String(url[..<question]) + "?***"
    }

    init(host: String, port: Int, token: String? = nil) {
        self.host = host
        self.port = port
        self.token = token
    }

    var display: String { "http://\(PlainHTTP(host: host, port: port).authority)" }

    /// GET `path` (with its query, already encoded); the status and the body. `wait` is how long
    /// the server may take to answer (a long poll's timeout); the whole exchange takes at most
    /// `wait + answerMargin` seconds. `entries`: how many inbox entries the answer may hold.
    func get(_ path: String, wait: Double, entries: Int) throws -> (status: Int, body: [UInt8]) {
        // An entry's JSON is over 256 bytes: no answer of `maxAnswer` bytes holds more.
        let entries = min(max(entries, 1), Self.maxAnswer / 256)
        return try send("GET", path, body: nil, wait: wait, valueLimit: min((entries + 1) * Self.maxValuesPerEntry, Self.maxValues),
                        holding: "\(entries) inbox entr\(entries == 1 ? "y" : "ies")")
    }

    /// The JSON values an answer of `/api/faults` holds at most: its settings, and one value for
    /// each of up to `GatewayFaults.maxUnregistered` tokens.
    static let maxFaultsValues = GatewayFaults.maxUnregistered + maxValuesPerEntry

    /// GET the faults in force.
    func getFaults() throws -> (status: Int, body: [UInt8]) {
        try send("GET", "/api/faults", body: nil, wait: 0, valueLimit: Self.maxFaultsValues, holding: "the faults")
    }

    /// PUT `body` (JSON) to `/api/faults`; the answer is the faults in force after.
    func putFaults(json body: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        try send("PUT", "/api/faults", body: body, wait: 0, valueLimit: Self.maxFaultsValues, holding: "the faults")
    }

    /// `valueLimit`: the JSON values the answer may hold, `holding` says for what (in the sentence
    /// that refuses more).
    private func send(_ method: String, _ path: String, body: [UInt8]?, wait: Double, valueLimit limit: Int,
                      holding: String) throws -> (status: Int, body: [UInt8]) {
        var headers = [("Accept", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let answer: PlainHTTP.Answer
        do {
            answer = try PlainHTTP(host: host, port: port).exchange(method, path, headers: headers, body: body, timeout: wait + Self.answerMargin,
                                                                    maxAnswer: Self.maxAnswer)
        } catch {
            throw Failure(description: sentence(error))
        }
        guard JSONValueCount.atMost(limit, in: answer.body) else {
            throw Failure(description: "The answer from \(display) holds more JSON values than \(holding) can (\(limit)); is that the inbox's port (ports file key \"ui\")?")
        }
        return (answer.status, answer.body)
    }

    /// A connection closed by the inbox without an answer: what a server past its limits does.
    private func closedSentence(_ detail: String) -> String {
        "The inbox at \(display) took the connection and closed it without answering\(detail): it turns away connections past its limits (\(InboxServer.maxConnectionsPerPeer) from one address, \(InboxServer.maxConnections) in all, each busy answering a request) or it is stopping; try again, or look for a client holding its connections."
    }

    private func sentence(_ failure: PlainHTTP.Failure) -> String {
        switch failure {
        case .unresolvable: return "Cannot resolve \(host), the inbox's host; check --ui."
        case .noSocket(let code): return "Cannot open a socket (\(String(cString: strerror(code))))."
        case .unreachable(ETIMEDOUT): return "Cannot reach the inbox at \(display): no connection within \(Int(Self.answerMargin)) seconds."
        case .unreachable(let code): return "Cannot reach the inbox at \(display) (\(String(cString: strerror(code)))); is mock serve running with --ui-port?"
        case .closedBeforeRequest: return closedSentence(" (before the request was sent)")
        case .closedWithoutAnswer(let code): return closedSentence(code == 0 ? "" : " (\(String(cString: strerror(code)).lowercased()))")
        case .cutShort(let received):
            return "The inbox at \(display) closed the connection after \(received) bytes, before its answer was complete."
        case .noAnswer(let seconds, let received):
            let what = received == 0 ? "sent no answer" : "sent \(received) bytes but no complete answer"
            return "The inbox at \(display) took the request and \(what) within \(MockExpectCommand.seconds(seconds)); is mock serve stopped (SIGSTOP) or overloaded?"
        case .abandoned: return "The request to the inbox at \(display) was given up."
        case .tooLarge: return "The inbox at \(display) sent more than 32 MiB; that is not the inbox's API."
        case .notHTTP(let opening):
            let start = ControlCharacters.hexEscaped(String(decoding: opening.prefix(32), as: UTF8.self))
            return "The answer from \(display) is not HTTP (it begins \"\(start)\"); is that the inbox's port (ports file key \"ui\")?"
        }
    }
}

/// Where the inbox is, for the commands that talk to its API: `--ui URL` or `--ports-file F`.
struct InboxAddressOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The inbox's address, http://HOST:PORT.", valueName: "URL")) var ui: String?
    @Option(name: .customLong("ports-file"), help: ArgumentHelp("mock serve's --ports-file: the inbox is its \"ui\" port on 127.0.0.1.", valueName: "FILE"))
    var portsFile: String?

    func validate() throws {
        if (ui == nil) == (portsFile == nil) { throw ValidationError("Give exactly one of --ui URL or --ports-file FILE.") }
    }

    /// The client for the inbox named; a bad URL is exit 2, an unreadable ports file exit 3.
    func client() throws -> InboxClient {
        if let ui {
            do { return try InboxClient(url: ui) } catch { throw ValidationError("\(error)") }
        }
        let path = portsFile!
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(message: "Cannot read the ports file \(path); give the file mock serve --ports-file wrote.", status: ExitStatus.input)
        }
        guard data.count <= 65_536, let ports = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CommandFailure(message: "The ports file \(path) is not mock serve's JSON ports file.", status: ExitStatus.input)
        }
        guard let value = ports["ui"], !(value is NSNull) else {
            throw CommandFailure(message: "The ports file \(path) has no \"ui\" port: start mock serve with --ui-port 0 (or a port) for the inbox.", status: ExitStatus.input)
        }
        guard let port = value as? Int, PortNumber.isValid(port) else {
            throw CommandFailure(message: "The ports file \(path) gives the \"ui\" port as \(ControlCharacters.hexEscaped("\(value)")), not a port from 1 to 65535; give the file mock serve --ports-file wrote.",
                                 status: ExitStatus.input)
        }
        return InboxClient(host: "127.0.0.1", port: port, token: ports["ui_token"] as? String)
    }
}

extension InboxClient {
    /// The answer's JSON object, or the sentence for a status the caller does not expect:
    /// 401 (no token) and 400 (the inbox's own sentence) are usage errors, anything else not
    /// the inbox's API.
    func object(_ answer: (status: Int, body: [UInt8]), expecting: Int = 200, refused: String = "The inbox refused the query") throws -> [String: Any] {
        let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
        if answer.status == 401 {
            throw CommandFailure(message: "The inbox at \(display) wants its access token: give --ui with the ?token= URL mock serve printed, or --ports-file.", status: ExitStatus.usage)
        }
        // 400: a value the inbox refuses; 413: a body past its bound (InboxRoutes.maxFaultsBody).
        if answer.status == 400 || answer.status == 413, let message = object?["error"] as? String {
            throw CommandFailure(message: "\(refused): \(ControlCharacters.hexEscaped(message))", status: ExitStatus.usage)
        }
        guard answer.status == expecting, let object else {
            throw CommandFailure(message: "The inbox at \(display) answered \(answer.status) without its JSON; is that the inbox's port?", status: ExitStatus.network)
        }
        return object
    }
}

/// A bound on the JSON values (object keys included) in a text, found in one pass without
/// parsing: every value but the first follows a `,`, a `:`, a `[` or a `{` outside strings.
enum JSONValueCount {
    /// Whether `bytes` holds at most `limit` values (counting stops past it).
    static func atMost(_ limit: Int, in bytes: [UInt8]) -> Bool {
        var count = 1, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "{"):
                count += 1
                if count > limit { return false }
            default: break
            }
        }
        return true
    }
}
