// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `channels`, `push --channel --live-activity` and `push --print-curl` against `mock serve`;
/// the printed curl command is run by curl itself.
@Suite("CLI: channels, broadcasts, Live Activities, --print-curl")
struct BroadcastCLITests {
    @Test("create a channel, broadcast a Live Activity update, read, list, delete; the limit and unknown channels get their sentences")
    func channelLifecycle() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--channels-port", "0", "--max-channels", "2", "--record", "record.jsonl"])
        let provider = try #require(ports["provider"] as? Int)
        let channels = try #require(ports["channels"] as? Int)
        let auth = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--bundle-id", "com.example.app", "--ca-file", "mockca/ca-bundle.pem"]
        let manage = auth + ["--gateway", "127.0.0.1:\(channels)"]
        let send = auth + ["--gateway", "127.0.0.1:\(provider)"]

        let created = try await f.run(["channels", "create", "--format", "json"] + manage)
        #expect(created.status == 0, "\(created)")
        let channel = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["channelId"] as? String)
        // The answer has arrived, so its line is on disk already (the mock is still running).
        let first = try #require(try records(f).first, "the create call is in the record while the mock runs")
        #expect(first["protocol"] as? String == "channels" && first["operation"] as? String == "create" && first["channel"] as? String == channel
                && first["status"] as? Int == 201 && first["message_storage_policy"] as? Int == 1 && first["bundle_id"] as? String == "com.example.app", "\(first)")

        let pushed = try await Binaries.apnskit(["push", "--channel", channel, "--channel", "bm9uZQ==", "--live-activity", "update",
                                           "--content-state", #"{"score": 2}"#, "--stale-date", "+600", "--format", "json"] + send, directory: f.dir.path)
        #expect(pushed.status == 1, "one channel unknown: \(pushed)")
        let report = try JSONSerialization.jsonObject(with: Data(pushed.stdout.utf8)) as? [String: Any]
        let results = report?["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["status"] as? Int } == [200, 400])
        #expect(results.last?["reason"] as? String == "ChannelNotRegistered")

        let read = try await f.run(["channels", "read", channel] + manage)
        #expect(read.status == 0 && read.stdout.contains("message-storage-policy 1"), "\(read)")
        #expect(try await f.run(["channels", "create"] + manage).status == 0)
        let full = try await f.run(["channels", "create"] + manage)
        #expect(full.status == 1 && full.stderr.contains("CannotCreateChannelConfig") && full.stderr.contains("limit of 10,000 channels"), "\(full)")
        let list = try await f.run(["channels", "list"] + manage)
        #expect(list.status == 0 && list.stdout.contains("2 channels for com.example.app") && list.stdout.contains(channel), "\(list)")
        #expect(try await f.run(["channels", "delete", channel] + manage).status == 0)
        let gone = try await f.run(["channels", "read", channel] + manage)
        #expect(gone.status == 1 && gone.stderr.contains("ChannelNotRegistered"), "\(gone)")

        // The record: every answered channel call and the one accepted broadcast, in order;
        // refused calls (the full create, the unknown channels) are not recorded, as for devices.
        let lines = try records(f)
        #expect(lines.map { $0["operation"] as? String ?? $0["protocol"] as? String } == ["create", "broadcast", "read", "create", "list", "delete"], "\(lines)")
        #expect(lines[1]["channel"] as? String == channel && lines[2]["channel"] as? String == channel && lines[5]["channel"] as? String == channel)
        #expect(lines[4]["channel_count"] as? Int == 2 && lines[5]["status"] as? Int == 204, "\(lines)")
        #expect(await server.stop() == 143)
    }

    @Test("--print-curl prints what push would send; run by curl against the mock it is accepted (token and certificate auth)")
    func printCurl() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock(certificates: true)
        let (server, ports) = try await f.startMock(["--channels-port", "0", "--record", "record.jsonl"])
        let provider = try #require(ports["provider"] as? Int)
        let channels = try #require(ports["channels"] as? Int)
        let token = String(repeating: "ab", count: 32)
        let gateway = ["--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem"]
        let key = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456"]

        let created = try await Binaries.apnskit(["channels", "create"] + key + ["--bundle-id", "com.example.app", "--gateway", "127.0.0.1:\(channels)",
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
            let printed = try await f.run(command)
            #expect(printed.status == 0 && printed.stdout.hasPrefix("curl --http2 "), "\(printed)")
            let run = try await ProcessRunner.run("/bin/sh", ["-c", printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + " --silent --write-out '%{http_code}'"],
                                            directory: f.dir.path)
            #expect(run.stdout == "200", "\(command[1...4]): \(run)")
        }
        let sent = try records(f).filter { $0["protocol"] as? String != "channels" }
        #expect(sent.count == 3, "nothing sent by apnskit itself, three by curl: \(sent)")
        #expect(sent[1]["topic"] as? String == "com.example.app.push-type.liveactivity" && sent[1]["push_type"] as? String == "liveactivity", "\(sent)")
        #expect(await server.stop() == 143)
    }

    @Test("--print-curl with --tokens and --channels: one curl command per notification, one JWT for all; curl runs them and the mock records each")
    func printCurlBatch() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--channels-port", "0", "--record", "record.jsonl"])
        let provider = try #require(ports["provider"] as? Int)
        let channelsPort = try #require(ports["channels"] as? Int)
        let key = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--ca-file", "mockca/ca-bundle.pem"]
        let gateway = ["--gateway", "127.0.0.1:\(provider)"]
        let tokens = ["01", "02", "03"].map { String(repeating: $0, count: 32) }
        let own = #"{"aps":{"alert":"a payload of its own"}}"#
        _ = try f.dir.write("tokens.txt", text: "# three devices, the second with its own payload\n\(tokens[0])\n\(tokens[1]) \(own)\n\n\(tokens[2])\nnot-a-token\n")
        let printed = try await Binaries.apnskit(["push", "--tokens", "tokens.txt", "--topic", "com.example.app", "--alert", "hi", "--print-curl"] + key + gateway,
                                           directory: f.dir.path)
        #expect(printed.status == 1 && printed.stderr.contains("Line 6") && printed.stderr.contains("tokens.txt"), "the bad line is reported: \(printed)")
        let commands = printed.stdout.split(separator: "\n").map(String.init)
        #expect(commands.count == 3 && commands.allSatisfy { $0.hasPrefix("curl --http2 ") }, "\(printed.stdout)")
        let bearers = Set(commands.compactMap { command in command.range(of: #"authorization: bearer [^']+"#, options: .regularExpression).map { String(command[$0]) } })
        #expect(bearers.count == 1 && commands.allSatisfy { $0.contains("authorization: bearer") }, "one JWT shared by every line")

        var channels: [String] = []
        for _ in 0..<2 {
            let created = try await f.run(["channels", "create", "--bundle-id", "com.example.app", "--gateway", "127.0.0.1:\(channelsPort)"] + key)
            channels.append(try #require(created.stdout.split(separator: "\n").last.map(String.init), "\(created)"))
        }
        // The channel list streams from stdin ('#' and blank lines skipped).
        let broadcast = try await Binaries.apnskit(["push", "--channels", "-", "--bundle-id", "com.example.app", "--live-activity", "update",
                                              "--content-state", #"{"score":1}"#, "--print-curl"] + key + gateway,
                                             stdin: Data("# two channels\n\(channels[0])\n\n  \(channels[1])\n".utf8), directory: f.dir.path)
        #expect(broadcast.status == 0, "\(broadcast)")
        let broadcastCommands = broadcast.stdout.split(separator: "\n").map(String.init)
        #expect(broadcastCommands.count == 2, "\(broadcast.stdout)")

        for command in commands + broadcastCommands {
            let run = try await ProcessRunner.run("/bin/sh", ["-c", command + " --silent --write-out '%{http_code}'"], directory: f.dir.path)
            #expect(run.stdout == "200", "\(run)")
        }
        // Bounds: a channel line over 1,024 bytes (exit 3); more than 10,000 ids to send to (exit 2), before connecting.
        _ = try f.dir.write("long.txt", text: channels[0] + "\n" + String(repeating: "A", count: 2000) + "\n")
        let long = try await Binaries.apnskit(["push", "--channels", "long.txt", "--bundle-id", "com.example.app", "--live-activity", "update",
                                         "--content-state", #"{"score":1}"#, "--print-curl"] + key + gateway, directory: f.dir.path)
        #expect(long.status == 3 && long.stderr.contains("Line 2 of long.txt is longer than 1024 bytes"), "\(long)")
        _ = try f.dir.write("many.txt", text: String(repeating: channels[0] + "\n", count: 10_001))
        let many = try await Binaries.apnskit(["push", "--channels", "many.txt", "--bundle-id", "com.example.app", "--live-activity", "update",
                                         "--content-state", #"{"score":1}"#] + key + gateway, directory: f.dir.path)
        #expect(many.status == 2 && many.stderr.contains("More than 10,000 channel ids"), "\(many)")

        let sent = try records(f).filter { $0["protocol"] as? String != "channels" }
        #expect(sent.compactMap { $0["token"] as? String } == tokens, "\(sent)")
        #expect(sent.first { $0["token"] as? String == tokens[1] }?["payload_bytes"] as? Int == own.utf8.count, "the line's own payload was sent")
        #expect(sent.compactMap { $0["channel"] as? String } == channels, "\(sent)")
        #expect(await server.stop() == 143)
    }

    /// The mock's record, one dictionary per line.
    func records(_ f: CLIFixture) throws -> [[String: Any]] {
        String(decoding: try f.dir.read("record.jsonl"), as: UTF8.self).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
