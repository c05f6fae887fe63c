import Foundation
import Testing
import TestSupport

/// The mock judged by clients nobody here wrote (scripts/conformance/mock_conformance.py):
/// PyPI aioapns and httpx[http2] and Debian curl --http2, over a table of requests, each
/// checked for status, reason and what the client itself reports.
@Suite("Conformance: third-party clients against the mock gateway")
struct ConformanceTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/conformance/mock_conformance.py").path

    @Test("aioapns, httpx and curl get Apple's status and reason for every request in the table")
    func thirdPartyClients() throws {
        let f = try CLIFixture()
        for step in [
            ["mock", "ca", "-o", "mockca"],
            ["mock", "issue", "--auth-key", "--ca", "mockca", "--team-id", "TEAM123456", "--key-id", "ABC123DEFG", "-o", "."],
            ["csr", "--email", "d@example.com", "--common-name", "Push", "--key-out", "push.key", "--csr-out", "push.csr"],
            ["mock", "issue", "push.csr", "--ca", "mockca", "--bundle-id", "com.example.app", "--type", "development", "-o", "dev.cer"],
            ["combine", "dev.cer", "push.key", "-o", "apns.pem"],
            ["mock", "issue", "push.csr", "--ca", "mockca", "--bundle-id", "com.example.app", "--type", "production", "-o", "prod.cer"],
            ["combine", "prod.cer", "push.key", "-o", "production.pem"],
        ] {
            let result = try Binaries.apnskit(step, directory: f.dir.path)
            try #require(result.status == 0, "\(step): \(result)")
        }
        let server = try BackgroundProcess(Binaries.apnskit, ["mock", "serve", "--ca", "mockca", "--port", "0", "--no-legacy", "--no-feedback",
                                                              "--ports-file", "ports.json", "-q"], directory: f.dir.path)
        #expect(server.waitForFile(f.dir.file("ports.json")), "\(server.stderr)")
        let ports = try JSONSerialization.jsonObject(with: Data(try f.dir.read("ports.json"))) as? [String: Any]
        let port = try #require(ports?["provider"] as? Int)
        let run = try ProcessRunner.run("python3", [Self.script, f.dir.path, String(port)])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("conformance: all cases answered as Apple does"), "\(run.stdout)")
        for client in ["aioapns", "httpx", "curl"] {
            #expect(run.stdout.split(separator: "\n").contains { $0.hasPrefix("ok   \(client)") }, "no \(client) case ran: \(run.stdout)")
        }
        #expect(server.stop() == 0)
    }
}
