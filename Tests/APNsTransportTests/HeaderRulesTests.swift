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
    func requestFields(settings: HTTP2Settings, headers: [(name: String, value: String)], shared: HTTP2HeaderBlock? = nil,
                       count: Int) async throws -> [HPACKIndexingPeer.Field] {
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
            var request = HTTP2Request(method: "GET", path: "/items/\(index)", headers: headers)
            request.sharedHeaders = shared
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

    @Test("A shared header block goes out before the request's own headers, names lowercased, with the same never-indexed rule")
    func sharedHeaderBlockOnTheWire() async throws {
        var settings = HTTP2Settings(maxConcurrentStreams: 100)
        settings.neverIndexedHeaders = ["x-secret", "x-request-id"]
        let shared = HTTP2HeaderBlock([(name: "X-Topic", value: "topic"), (name: "x-secret", value: "s"), (name: "x-kind", value: "k")])
        let fields = try await requestFields(settings: settings, headers: [(name: "x-request-id", value: "id")], shared: shared, count: 2)
        let names = [":method", ":scheme", ":authority", ":path", "x-topic", "x-secret", "x-kind", "x-request-id"]
        #expect(fields.map(\.name) == names + names, "\(fields)")
        for field in fields {
            #expect(field.never == ["x-secret", "x-request-id"].contains(field.name), "\(field)")
        }
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

    @Test("Request headers arrive at a server as sent: names, values (repeated and changed) and order, read as bytes or as Strings")
    func requestHeadersArriveAsSent() async throws {
        let (server, client, received) = try await recordingServer { request in
            #expect(request.headers.isEmpty, "a server fills `received`, not `headers`")
            #expect(request.received.pairs.map(\.name) == request.allHeaders.map(\.name))
            // The byte view's rows point at each field's own bytes.
            let viaBytes = request.received.withUnsafeFields { bytes, fields in
                fields.map { field in
                    String(decoding: field.name(in: bytes), as: UTF8.self) + "="
                        + String(decoding: UnsafeBufferPointer(rebasing: bytes[field.valueRange]), as: UTF8.self)
                }
            }
            #expect(request.header("x-other") == request.received.value(of: "x-other"))
            return viaBytes
        }
        defer { server.stop() }
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

        // A shared block's fields arrive before the request's own, with their values.
        var request = HTTP2Request(method: "GET", path: "/", headers: [(name: "x-other", value: "own")], authorization: "bearer 3")
        request.sharedHeaders = HTTP2HeaderBlock([(name: "X-Kept", value: "shared")])
        #expect(request.header("x-kept") == "shared")
        #expect(request.allHeaders.map { "\($0.name)=\($0.value)" } == ["x-kept=shared", "x-other=own", "authorization=bearer 3"])
        #expect(try await client.send(request, timeout: 30).status == 200)
        #expect(received.all.last == ["x-kept=shared", "x-other=own", "authorization=bearer 3"])
    }

    @Test("A request's content-length, written digit by digit, is its body's length at every number of digits")
    func contentLengthMatchesTheBody() async throws {
        let (server, client, received) = try await recordingServer { request in
            [request.header("content-length") ?? "none", String(request.body.count)]
        }
        defer { server.stop() }
        defer { client.close() }
        let sizes = [1, 9, 10, 99, 100, 1000, 4096, 12345]
        for size in sizes {
            #expect(try await client.send(HTTP2Request(path: "/", body: Array(repeating: 0x61, count: size)), timeout: 30).status == 200)
        }
        #expect(received.all == sizes.map { [String($0), String($0)] })
    }

    /// A server that records what `record` reads of each request it answers (200), and a
    /// client connected to it.
    func recordingServer(_ record: @escaping @Sendable (HTTP2Request) -> [String]) async throws
        -> (server: HTTP2Server, client: HTTP2Client, received: Received) {
        let settings = HTTP2Settings()
        let received = Received()
        let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity), settings: settings) { request in
            received.add(record(request))
            return HTTP2Response(status: 200)
        }
        do {
            let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port),
                                                       tls: .client(identity: nil, trust: .caFile(fixtures.caCert)))
            return (server, client, received)
        } catch {
            server.stop()
            throw error
        }
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
