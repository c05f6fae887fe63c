// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
// async-http-client (APNSwift's transport, and the most used Swift HTTP client on servers)
// against the mock gateway, for the conformance suite (scripts/conformance/mock_conformance.py).
// Not our code: only its public API is used here, configured as APNSwift configures it
// (HTTP/2, TLS trusting the given CA). Test-only: no product depends on this target.
//
// Usage:
//   AHCConformance cases PORT CA_FILE      reads a JSON array of requests on stdin
//       ([{"case", "path", "headers": {name: value}, "body"}]), sends each on one client,
//       prints one JSON line per request: {"case", "status", "reason", "apns_id"}.
//   AHCConformance repeat PORT CA_FILE N CONCURRENCY   reads one request on stdin and sends
//       it N times, CONCURRENCY at a time, on one client; prints {"sent", "answered", "ok",
//       "failed", "errors"} (the first few error descriptions).
// Only 127.0.0.1 is contacted.
#if canImport(AsyncHTTPClient)
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

struct Exchange: Decodable {
    let `case`: String?
    let path: String
    let headers: [String: String]
    let body: String
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("AHCConformance: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let port = Int(arguments[2]), (1...65535).contains(port) else {
    fail("usage: AHCConformance cases|repeat PORT CA_FILE [N CONCURRENCY]")
}
let input = FileHandle.standardInput.readDataToEndOfFile()

var configuration = HTTPClient.Configuration()
configuration.httpVersion = .automatic  // HTTP/2 by ALPN, as APNSwift uses it
var tls = TLSConfiguration.makeClientConfiguration()
do {
    tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(arguments[3]))
} catch {
    fail("cannot read the CA file \(arguments[3]): \(error)")
}
configuration.tlsConfiguration = tls
let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

func send(_ exchange: Exchange) async throws -> (status: Int, body: String, apnsID: String?) {
    var request = HTTPClientRequest(url: "https://127.0.0.1:\(port)\(exchange.path)")
    request.method = .POST
    for (name, value) in exchange.headers { request.headers.add(name: name, value: value) }
    request.body = .bytes(ByteBuffer(string: exchange.body))
    let response = try await client.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 64 * 1024)
    return (Int(response.status.code), String(buffer: body), response.headers.first(name: "apns-id"))
}

func reason(in body: String) -> String? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
    return object["reason"] as? String
}

func printJSON(_ object: [String: Any]) {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    print(String(decoding: data, as: UTF8.self))
}

switch arguments[1] {
case "cases":
    guard let exchanges = try? JSONDecoder().decode([Exchange].self, from: input) else { fail("stdin is not a JSON array of requests") }
    for exchange in exchanges {
        do {
            let answer = try await send(exchange)
            printJSON(["case": exchange.case ?? "", "status": answer.status, "reason": reason(in: answer.body) ?? NSNull(),
                       "apns_id": answer.apnsID ?? NSNull()])
        } catch {
            printJSON(["case": exchange.case ?? "", "status": 0, "reason": "error: \(error)"])
        }
    }
case "repeat":
    guard arguments.count == 6, let count = Int(arguments[4]), (1...1_000_000).contains(count),
          let concurrency = Int(arguments[5]), (1...1000).contains(concurrency) else {
        fail("repeat needs N (1...1000000) and CONCURRENCY (1...1000)")
    }
    guard let exchange = try? JSONDecoder().decode(Exchange.self, from: input) else { fail("stdin is not one JSON request") }
    var ok = 0, answered = 0, failed = 0
    var errors: [String] = []
    await withTaskGroup(of: Result<Int, Error>.self) { group in
        var started = 0
        func startOne() {
            guard started < count else { return }
            started += 1
            group.addTask {
                do { return .success(try await send(exchange).status) } catch { return .failure(error) }
            }
        }
        for _ in 0..<concurrency { startOne() }
        while let result = await group.next() {
            switch result {
            case .success(let status):
                answered += 1
                if status == 200 { ok += 1 }
            case .failure(let error):
                failed += 1
                if errors.count < 5 { errors.append("\(error)") }
            }
            startOne()
        }
    }
    printJSON(["sent": count, "answered": answered, "ok": ok, "failed": failed, "errors": errors])
default:
    fail("unknown mode \(arguments[1]); use cases or repeat")
}
// The client's connections are closed before exit (the mock logs them as the peer's close).
let shutdown: () async throws -> Void = client.shutdown
do { try await shutdown() } catch { fail("shutting the client down: \(error)") }
#else
// Built without the CommandLineTool trait: async-http-client is not resolved.
print("AHCConformance: built without the CommandLineTool trait; async-http-client is not available.")
exit(2)
#endif
