// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsTransport
import Foundation
import Testing
import TestSupport
import TransportTestSupport

/// The transport knows no APNs: which headers are sent never indexed and which request
/// headers a server keeps are rules its caller passes in `HTTP2Settings`. Checked on the wire
/// by python's h2/hpack, which tells a never-indexed literal from an indexable one.
@Suite("HTTP/2 header rules come from the caller")
struct HeaderRulesTests {
    let fixtures = Fixtures.shared

    /// The package's root folder, from this file's place in it.
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test("No file under Sources/APNsTransport says \"apns\", in any case: not in a name, an import, a C function or a comment")
    func transportSourcesKnowNoAPNs() throws {
        let folder = Self.packageRoot.appendingPathComponent("Sources/APNsTransport")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10, "\(folder.path) holds \(files)")
        var found: [String] = []
        for file in files.sorted() {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.lowercased().contains("apns") {
                found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found.isEmpty, "APNs knowledge in the transport:\n\(found.joined(separator: "\n"))")
    }

    /// Starts the python server, sends `count` requests with `settings`, returns what it saw.
    func requestFields(settings: HTTP2Settings, headers: [(name: String, value: String)], count: Int) async throws -> [HPACKIndexingPeer.Field] {
        let script = try HPACKIndexingPeer.script(in: fixtures.dir)
        let log = fixtures.dir + "/hpack-\(UUID().uuidString.prefix(8)).log"
        let server = try await BackgroundProcess.serving(tool("python3")) { port in
            [script, "serve", String(port), fixtures.serverCert, fixtures.serverKey, log]
        }
        defer { server.kill() }
        let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port),
                                                   tls: .client(identity: nil, trust: .caFile(fixtures.caCert)), settings: settings)
        defer { client.close() }
        for index in 0..<count {
            let request = HTTP2Request(method: "GET", path: "/items/\(index)", headers: headers)
            let response = try await client.send(request, timeout: 30)
            #expect(response.status == 200)
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return HPACKIndexingPeer.fields(in: text)
    }

    @Test("A client sends exactly the headers its settings name never indexed, :path included; by default none")
    func clientNeverIndexesTheCallersHeaders() async throws {
        var settings = HTTP2Settings(maxConcurrentStreams: 100)
        settings.neverIndexedHeaders = [":path", "x-request-id"]
        let headers = [(name: "X-Request-Id", value: "id"), (name: "X-Topic", value: "topic")]
        let ruled = try await requestFields(settings: settings, headers: headers, count: 2)
        #expect(ruled.count == 12, "\(ruled)")
        for field in ruled {
            #expect(field.never == [":path", "x-request-id"].contains(field.name), "\(field)")
        }

        let plain = try await requestFields(settings: HTTP2Settings(maxConcurrentStreams: 100), headers: headers, count: 2)
        #expect(plain.count == 12, "\(plain)")
        #expect(plain.filter(\.never).isEmpty, "\(plain)")
    }

    @Test("A server sends exactly the response headers its settings name never indexed")
    func serverNeverIndexesTheCallersHeaders() async throws {
        var settings = HTTP2Settings()
        settings.neverIndexedHeaders = ["x-id"]
        let counter = Counter()
        let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity), settings: settings) { _ in
            HTTP2Response(status: 200, headers: [("x-id", "id-\(counter.next())"), ("x-kind", "same")])
        }
        defer { server.stop() }
        let script = try HPACKIndexingPeer.script(in: fixtures.dir)
        let result = try await ProcessRunner.run(tool("python3"), [script, "get", String(server.port), fixtures.caCert, "localhost", "/", "2"], combineOutput: true)
        #expect(result.status == 0, "\(result.output)")
        let fields = HPACKIndexingPeer.fields(in: result.output)
        #expect(fields.map(\.name) == [":status", "x-id", "x-kind", ":status", "x-id", "x-kind"], "\(result.output)")
        for field in fields {
            #expect(field.never == (field.name == "x-id"), "\(field)")
        }
    }

    @Test("Request headers a server keeps arrive as sent: names, values (repeated and changed) and order, kept or not")
    func keptRequestHeadersArriveAsSent() async throws {
        var settings = HTTP2Settings()
        settings.keptRequestHeaders = ["x-kept", "authorization"]
        let received = Received()
        let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity), settings: settings) { request in
            received.add(request.headers.map { "\($0.name)=\($0.value)" })
            return HTTP2Response(status: 200)
        }
        defer { server.stop() }
        let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port),
                                                   tls: .client(identity: nil, trust: .caFile(fixtures.caCert)))
        defer { client.close() }
        let sent = [["x-kept=a", "x-other=b", "authorization=bearer 1"],
                    ["x-kept=a", "x-other=b", "authorization=bearer 1"],
                    ["x-kept=changed", "x-other=c", "authorization=bearer 2"]]
        for headers in sent {
            let pairs = headers.map { header -> (name: String, value: String) in
                let parts = header.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            }
            #expect(try await client.send(HTTP2Request(method: "GET", path: "/", headers: pairs), timeout: 30).status == 200)
        }
        #expect(received.all == sent)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { value += 1; return value } }
    }

    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [[String]] = []
        func add(_ headers: [String]) { lock.withLock { requests.append(headers) } }
        var all: [[String]] { lock.withLock { requests } }
    }
}
