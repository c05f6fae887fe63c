import Foundation
import Testing
import TestSupport

/// `channels`, `push --channel --live-activity` and `push --print-curl` against `mock serve`;
/// the printed curl command is run by curl itself.
@Suite("CLI: channels, broadcasts, Live Activities, --print-curl", .serialized)
struct BroadcastCLITests {
    @Test("create a channel, broadcast a Live Activity update, read, list, delete; the limit and unknown channels get their sentences")
    func channelLifecycle() throws {
        let f = try CLIFixture()
        try f.prepareMock()
        let (server, ports) = try f.startMock(["--channels-port", "0", "--max-channels", "2", "--record", "record.jsonl"])
        let provider = try #require(ports["provider"] as? Int)
        let channels = try #require(ports["channels"] as? Int)
        let auth = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--bundle-id", "com.example.app", "--ca-file", "mockca/ca-bundle.pem"]
        let manage = auth + ["--gateway", "127.0.0.1:\(channels)"]
        let send = auth + ["--gateway", "127.0.0.1:\(provider)"]

        let created = try Binaries.apnskit(["channels", "create", "--format", "json"] + manage, directory: f.dir.path)
        #expect(created.status == 0, "\(created)")
        let channel = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["channelId"] as? String)

        let pushed = try Binaries.apnskit(["push", "--channel", channel, "--channel", "bm9uZQ==", "--live-activity", "update",
                                           "--content-state", #"{"score": 2}"#, "--stale-date", "+600", "--format", "json"] + send, directory: f.dir.path)
        #expect(pushed.status == 1, "one channel unknown: \(pushed)")
        let report = try JSONSerialization.jsonObject(with: Data(pushed.stdout.utf8)) as? [String: Any]
        let results = report?["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["status"] as? Int } == [200, 400])
        #expect(results.last?["reason"] as? String == "ChannelNotRegistered")

        let read = try Binaries.apnskit(["channels", "read", channel] + manage, directory: f.dir.path)
        #expect(read.status == 0 && read.stdout.contains("message-storage-policy 1"), "\(read)")
        #expect(try Binaries.apnskit(["channels", "create"] + manage, directory: f.dir.path).status == 0)
        let full = try Binaries.apnskit(["channels", "create"] + manage, directory: f.dir.path)
        #expect(full.status == 1 && full.stderr.contains("CannotCreateChannelConfig") && full.stderr.contains("limit of 10,000 channels"), "\(full)")
        let list = try Binaries.apnskit(["channels", "list"] + manage, directory: f.dir.path)
        #expect(list.status == 0 && list.stdout.contains("2 channels for com.example.app") && list.stdout.contains(channel), "\(list)")
        #expect(try Binaries.apnskit(["channels", "delete", channel] + manage, directory: f.dir.path).status == 0)
        let gone = try Binaries.apnskit(["channels", "read", channel] + manage, directory: f.dir.path)
        #expect(gone.status == 1 && gone.stderr.contains("ChannelNotRegistered"), "\(gone)")

        // The record holds the one accepted broadcast, with its Live Activity payload's size.
        let lines = String(decoding: try f.dir.read("record.jsonl"), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(#""protocol":"broadcast""#) && lines[0].contains(channel), "\(lines)")
        #expect(server.stop() == 0)
    }

    @Test("--print-curl prints what push would send; run by curl against the mock it is accepted (token and certificate auth)")
    func printCurl() throws {
        let f = try CLIFixture()
        try f.prepareMock(certificates: true)
        let (server, ports) = try f.startMock(["--channels-port", "0", "--record", "record.jsonl"])
        let provider = try #require(ports["provider"] as? Int)
        let channels = try #require(ports["channels"] as? Int)
        let token = String(repeating: "ab", count: 32)
        let gateway = ["--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem"]
        let key = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456"]

        let created = try Binaries.apnskit(["channels", "create"] + key + ["--bundle-id", "com.example.app", "--gateway", "127.0.0.1:\(channels)",
                                            "--ca-file", "mockca/ca-bundle.pem"], directory: f.dir.path)
        let channel = try #require(created.stdout.split(separator: "\n").last.map(String.init), "\(created)")
        let commands: [[String]] = [
            ["push", "apns.pem", "--token", token, "--alert", "hi", "--print-curl"] + gateway,
            ["push", "--token", token, "--topic", "com.example.app", "--live-activity", "start", "--content-state", #"{"score":0}"#,
             "--attributes-type", "Match", "--attributes", #"{"home":"A"}"#, "--title", "Kickoff", "--input-push-token", "--print-curl"] + key + gateway,
            ["push", "--channel", channel, "--bundle-id", "com.example.app", "--live-activity", "update", "--content-state", #"{"score":1}"#,
             "--print-curl"] + key + gateway,
        ]
        for command in commands {
            let printed = try Binaries.apnskit(command, directory: f.dir.path)
            #expect(printed.status == 0 && printed.stdout.hasPrefix("curl --http2 "), "\(printed)")
            let run = try ProcessRunner.run("/bin/sh", ["-c", printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + " --silent --write-out '%{http_code}'"],
                                            directory: f.dir.path)
            #expect(run.stdout == "200", "\(command[1...4]): \(run)")
        }
        let records = String(decoding: try f.dir.read("record.jsonl"), as: UTF8.self).split(separator: "\n")
        #expect(records.count == 3, "nothing sent by apnskit itself, three by curl: \(records)")
        #expect(records[1].contains(#""topic":"com.example.app.push-type.liveactivity""#) && records[1].contains(#""push_type":"liveactivity""#), "\(records)")
        #expect(server.stop() == 0)
    }
}
