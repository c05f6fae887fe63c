// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMockInbox
import ArgumentParser
import Foundation

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

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// From `http://HOST:PORT[/][?token=TOKEN]`, as `mock serve` prints it.
    init(url: String) throws {
        let items = URLComponents(string: url)?.queryItems ?? []
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host, !host.isEmpty,
              let port = components.port, components.path.isEmpty || components.path == "/",
              items.allSatisfy({ $0.name == "token" && $0.value?.isEmpty == false }) else {
            throw Failure(description: "--ui \(url) is not an inbox address; give it as http://HOST:PORT (with ?token=TOKEN for an inbox beyond this machine), as mock serve prints it.")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        token = items.first?.value
    }

    init(host: String, port: Int, token: String? = nil) {
        self.host = host
        self.port = port
        self.token = token
    }

    var display: String { "http://\(PlainHTTP(host: host, port: port).authority)" }

    /// GET `path` (with its query, already encoded); the status and the body. `wait` is how long
    /// the server may take to answer (a long poll's timeout) before the read gives up.
    func get(_ path: String, wait: Double) throws -> (status: Int, body: [UInt8]) {
        try send("GET", path, body: nil, wait: wait)
    }

    /// PUT `body` (JSON) to `path`.
    func put(_ path: String, json body: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        try send("PUT", path, body: body, wait: 0)
    }

    private func send(_ method: String, _ path: String, body: [UInt8]?, wait: Double) throws -> (status: Int, body: [UInt8]) {
        var headers = [("Accept", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        do {
            let answer = try PlainHTTP(host: host, port: port).exchange(method, path, headers: headers, body: body, connectTimeout: 10,
                                                                       answerTimeout: wait + 10, maxAnswer: Self.maxAnswer)
            return (answer.status, answer.body)
        } catch {
            throw Failure(description: sentence(error))
        }
    }

    private func sentence(_ failure: PlainHTTP.Failure) -> String {
        switch failure {
        case .unresolvable: return "Cannot resolve \(host), the inbox's host; check --ui."
        case .noSocket(let code): return "Cannot open a socket (\(String(cString: strerror(code))))."
        case .unreachable(let code): return "Cannot reach the inbox at \(display) (\(String(cString: strerror(code)))); is mock serve running with --ui-port?"
        case .closedBeforeRequest: return "The inbox at \(display) closed the connection before the request was sent."
        case .noAnswer(let seconds, let code):
            return "The inbox at \(display) did not answer within \(Int(seconds)) seconds\(code == 0 ? "" : " (\(String(cString: strerror(code))))")."
        case .tooLarge: return "The inbox at \(display) sent more than 32 MiB; that is not the inbox's API."
        case .notHTTP: return "The answer from \(display) is not HTTP; is that the inbox's port (ports file key \"ui\")?"
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
        guard let port = ports["ui"] as? Int else {
            throw CommandFailure(message: "The ports file \(path) has no \"ui\" port: start mock serve with --ui-port 0 (or a port) for the inbox.", status: ExitStatus.input)
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
        if answer.status == 400, let message = object?["error"] as? String {
            throw CommandFailure(message: "\(refused): \(message)", status: ExitStatus.usage)
        }
        guard answer.status == expecting, let object else {
            throw CommandFailure(message: "The inbox at \(display) answered \(answer.status) without its JSON; is that the inbox's port?", status: ExitStatus.network)
        }
        return object
    }
}
