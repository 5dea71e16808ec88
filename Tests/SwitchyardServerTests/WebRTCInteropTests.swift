import Foundation
import SignalingProtocol
import Testing

/// Real WebRTC stacks against a real daemon: aiortc (PyPI) and Debian's headless Chromium driven by
/// Selenium through the demo page the daemon serves. `make test` installs both (`make interop-peers`)
/// and runs these after the main suite, since a browser takes most of the two cores.
@Suite(.serialized) struct WebRTCInteropTests {
    @Test func aiortcPublishesOpusAndVP8AndAnotherAiortcSubscribesAndDecodes() async throws {
        let daemon = try await DaemonHarness.start()
        let url = "ws://127.0.0.1:\(daemon.port)/v1/ws"
        let subscriber = try InteropProcess(
            script: "aiortc_peer.py",
            arguments: ["subscribe", "--url", url, "--session", "aiortc", "--token", try await daemon.token(session: "aiortc", role: .subscriber), "--seconds", "4"])
        try await Task.sleep(for: .milliseconds(1500))
        let publisher = try InteropProcess(
            script: "aiortc_peer.py",
            arguments: ["publish", "--url", url, "--session", "aiortc", "--token", try await daemon.token(session: "aiortc", role: .publisher), "--seconds", "8"])
        let received = await subscriber.finish(within: .seconds(60))
        let sent = await publisher.finish(within: .seconds(60))
        try await daemon.stop()
        let report = received.report
        #expect(received.status == 0, "subscriber: \(received.output) \(received.errors.suffix(2000))")
        #expect(sent.status == 0, "publisher: \(sent.output) \(sent.errors.suffix(2000))")
        #expect((report["videoFrames"] as? Int ?? 0) >= 30, "decoded video frames: \(report)")
        #expect((report["audioFrames"] as? Int ?? 0) >= 50, "decoded audio frames: \(report)")
        #expect(report["width"] as? Int == 320 && report["height"] as? Int == 240)
        #expect(report["srtpProfile"] as? String == "AEAD_AES_128_GCM")
        #expect(sent.report["srtpProfile"] as? String == "AEAD_AES_128_GCM")
        if let offered = sent.report["offerSentAt"] as? Double, let decoded = report["firstFrameAt"] as? Double {
            print("webrtc-interop aiortc offer_to_first_decoded_frame_ms=\(Int((decoded - offered) * 1000)) srtp=\(report["srtpProfile"] ?? "-")")
        }
    }

    /// A session past its node's share of subscribers: the second aiortc subscriber's WebRTC
    /// transport (ICE, DTLS and SRTP) is on another node of the cluster, fed over a relay leg.
    @Test func aiortcSubscriberCascadedToAnotherNodeDecodesOverWebRTC() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2) { $0.cluster?.subscribersBeforeCascading = 1 }
        let (origin, edge) = (cluster.nodes[0], cluster.nodes[1])
        let url = origin.webSocketURL
        func peer(_ role: String, seconds: Int) async throws -> InteropProcess {
            try InteropProcess(
                script: "aiortc_peer.py",
                arguments: [role, "--url", url, "--session", "relayed", "--token",
                    try await origin.token(session: "relayed", role: role == "publish" ? .publisher : .subscriber), "--seconds", "\(seconds)"])
        }
        let near = try await peer("subscribe", seconds: 4)
        try await Task.sleep(for: .milliseconds(1500))
        let publisher = try await peer("publish", seconds: 12)
        #expect(await eventually { await origin.daemon.mediaStatistics().consumers == 2 }, "the near subscriber consumes on the session's node")
        let far = try await peer("subscribe", seconds: 4)
        #expect(await eventually { await edge.daemon.mediaStatistics().consumers == 2 }, "the far subscriber consumes on the other node")
        let farOutcome = await far.finish(within: .seconds(60))
        let nearOutcome = await near.finish(within: .seconds(60))
        _ = await publisher.finish(within: .seconds(60))
        await cluster.stop()
        for (name, outcome) in [("near", nearOutcome), ("far", farOutcome)] {
            #expect(outcome.status == 0, "\(name): \(outcome.output) \(outcome.errors.suffix(2000))")
            #expect((outcome.report["videoFrames"] as? Int ?? 0) >= 30, "\(name) decoded video frames: \(outcome.report)")
            #expect((outcome.report["audioFrames"] as? Int ?? 0) >= 50, "\(name) decoded audio frames: \(outcome.report)")
        }
    }

    private func eventually(_ timeout: Duration = .seconds(15), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return await condition()
    }

    /// aiortc publishes over WHIP (one POST, no signaling protocol), another aiortc subscribes over
    /// the WebSocket and decodes, and the publisher's DELETE ends the stream.
    @Test func aiortcPublishesOverWHIPAndAWebSocketSubscriberDecodes() async throws {
        let daemon = try await DaemonHarness.start()
        #expect(try await daemon.http("POST", "/v1/sessions", token: try await daemon.restToken(), body: #"{"sessionId":"whip"}"#).status == 201)
        let subscriber = try InteropProcess(
            script: "aiortc_peer.py",
            arguments: [
                "subscribe", "--url", "ws://127.0.0.1:\(daemon.port)/v1/ws", "--session", "whip", "--token",
                try await daemon.token(session: "whip", role: .subscriber), "--seconds", "4",
            ])
        try await Task.sleep(for: .milliseconds(1500))
        let publisher = try InteropProcess(
            script: "aiortc_peer.py",
            arguments: [
                "whip", "--url", "http://127.0.0.1:\(daemon.port)/v1/whip/whip", "--token",
                try await daemon.token(session: "whip", role: .publisher), "--seconds", "8", "--name", "aiortc over WHIP",
            ])
        let received = await subscriber.finish(within: .seconds(60))
        let sent = await publisher.finish(within: .seconds(60))
        let left = await daemon.daemon.signaling.directory.snapshot(of: "whip")
        try await daemon.stop()
        #expect(sent.status == 0, "WHIP publisher: \(sent.output) \(sent.errors.suffix(2000))")
        #expect(received.status == 0, "subscriber: \(received.output) \(received.errors.suffix(2000))")
        #expect(received.report["streamId"] as? String == sent.report["streamId"] as? String)
        #expect((received.report["videoFrames"] as? Int ?? 0) >= 30, "decoded video frames: \(received.report)")
        #expect((received.report["audioFrames"] as? Int ?? 0) >= 50, "decoded audio frames: \(received.report)")
        #expect(sent.report["deleteStatus"] as? Int == 200)
        #expect(left?.streams.isEmpty == true && left?.connections.isEmpty == true, "\(String(describing: left))")
        if let offered = sent.report["offerSentAt"] as? Double, let decoded = received.report["firstFrameAt"] as? Double {
            print("webrtc-interop whip aiortc post_to_first_decoded_frame_ms=\(Int((decoded - offered) * 1000))")
        }
    }

    /// H.264 as a WHIP encoder sends it: aiortc publishes H.264 only (libx264, packetization mode 1)
    /// over WHIP; an aiortc subscriber over the WebSocket and an aiortc WHEP player offering H.264
    /// both decode it.
    @Test func aiortcPublishesH264OverWHIPAndAWebSocketSubscriberAndAWHEPPlayerDecode() async throws {
        let daemon = try await DaemonHarness.start()
        #expect(try await daemon.http("POST", "/v1/sessions", token: try await daemon.restToken(), body: #"{"sessionId":"h264"}"#).status == 201)
        let (watcher, _) = try await daemon.connect(session: "h264", role: .subscriber)
        let subscriber = try InteropProcess(
            script: "aiortc_peer.py",
            arguments: [
                "subscribe", "--url", "ws://127.0.0.1:\(daemon.port)/v1/ws", "--session", "h264", "--token",
                try await daemon.token(session: "h264", role: .subscriber), "--seconds", "5",
            ])
        try await Task.sleep(for: .milliseconds(1500))
        let publisher = try InteropProcess(
            script: "aiortc_peer.py",
            arguments: [
                "whip", "--url", "http://127.0.0.1:\(daemon.port)/v1/whip/h264", "--token",
                try await daemon.token(session: "h264", role: .publisher), "--seconds", "10", "--codec", "h264",
            ])
        guard case .streamCreated(let created) = try await watcher.event(.streamCreated, timeout: .seconds(30)) else { return }
        #expect(created.stream.hasVideo)
        let player = try InteropProcess(
            script: "aiortc_peer.py",
            arguments: [
                "whep", "--url", "http://127.0.0.1:\(daemon.port)/v1/whep/h264/\(created.stream.streamId)", "--token",
                try await daemon.token(session: "h264", role: .subscriber), "--seconds", "5", "--codec", "h264",
            ])
        let played = await player.finish(within: .seconds(60))
        let received = await subscriber.finish(within: .seconds(60))
        let sent = await publisher.finish(within: .seconds(60))
        await watcher.close()
        try await daemon.stop()
        #expect(sent.status == 0, "WHIP publisher: \(sent.output) \(sent.errors.suffix(2000))")
        for (name, outcome) in [("WebSocket subscriber", received), ("WHEP player", played)] {
            #expect(outcome.status == 0, "\(name): \(outcome.output) \(outcome.errors.suffix(2000))")
            #expect((outcome.report["videoFrames"] as? Int ?? 0) >= 30, "\(name) decoded H.264 frames: \(outcome.report)")
            #expect(outcome.report["width"] as? Int == 320 && outcome.report["height"] as? Int == 240, "\(outcome.report)")
        }
        if let offered = sent.report["offerSentAt"] as? Double, let decoded = received.report["firstFrameAt"] as? Double {
            print("webrtc-interop whip h264 aiortc post_to_first_decoded_frame_ms=\(Int((decoded - offered) * 1000))")
        }
        if let offered = played.report["offerSentAt"] as? Double, let decoded = played.report["firstFrameAt"] as? Double {
            print("webrtc-interop whep h264 aiortc post_to_first_decoded_frame_ms=\(Int((decoded - offered) * 1000))")
        }
    }

    /// aiortc publishes over the WebSocket protocol, and another aiortc plays the stream over WHEP
    /// (its own recvonly offer, the router's answer in its payload types) and decodes it.
    @Test func aiortcPlaysOverWHEPAStreamPublishedOverTheWebSocket() async throws {
        let daemon = try await DaemonHarness.start()
        let (watcher, _) = try await daemon.connect(session: "whep", role: .subscriber)
        let publisher = try InteropProcess(
            script: "aiortc_peer.py",
            arguments: [
                "publish", "--url", "ws://127.0.0.1:\(daemon.port)/v1/ws", "--session", "whep", "--token",
                try await daemon.token(session: "whep", role: .publisher), "--seconds", "9",
            ])
        guard case .streamCreated(let created) = try await watcher.event(.streamCreated, timeout: .seconds(30)) else { return }
        let player = try InteropProcess(
            script: "aiortc_peer.py",
            arguments: [
                "whep", "--url", "http://127.0.0.1:\(daemon.port)/v1/whep/whep/\(created.stream.streamId)", "--token",
                try await daemon.token(session: "whep", role: .subscriber), "--seconds", "5",
            ])
        let played = await player.finish(within: .seconds(60))
        let sent = await publisher.finish(within: .seconds(60))
        await watcher.close()
        try await daemon.stop()
        #expect(played.status == 0, "WHEP player: \(played.output) \(played.errors.suffix(2000))")
        #expect(sent.status == 0, "publisher: \(sent.output) \(sent.errors.suffix(2000))")
        #expect((played.report["videoFrames"] as? Int ?? 0) >= 30, "decoded video frames: \(played.report)")
        #expect((played.report["audioFrames"] as? Int ?? 0) >= 50, "decoded audio frames: \(played.report)")
        #expect(played.report["width"] as? Int == 320 && played.report["height"] as? Int == 240)
        #expect(played.report["deleteStatus"] as? Int == 200)
        if let offered = played.report["offerSentAt"] as? Double, let decoded = played.report["firstFrameAt"] as? Double {
            print("webrtc-interop whep aiortc post_to_first_decoded_frame_ms=\(Int((decoded - offered) * 1000))")
        }
    }

    /// GStreamer's webrtcbin (Debian's packages, a stack no one here wrote) publishes a test pattern
    /// over WHIP, in VP8 or in H.264 from x264 as OBS would, and another webrtcbin plays it over WHEP
    /// and decodes it.
    @Test(arguments: ["vp8", "h264"]) func gstreamerPublishesOverWHIPAndAnotherGStreamerPlaysOverWHEP(codec: String) async throws {
        let daemon = try await DaemonHarness.start()
        let (watcher, _) = try await daemon.connect(session: "gstreamer", role: .subscriber)
        let publisher = try InteropProcess(
            script: "gst_webrtc_peer.py",
            arguments: [
                "whip", "--url", "http://127.0.0.1:\(daemon.port)/v1/whip/gstreamer", "--token",
                try await daemon.token(session: "gstreamer", role: .publisher), "--seconds", "9", "--name", "webrtcbin", "--codec", codec,
            ], python: "/usr/bin/python3")
        guard case .streamCreated(let created) = try await watcher.event(.streamCreated, timeout: .seconds(30)) else { return }
        #expect(created.stream.name == "webrtcbin")
        let player = try InteropProcess(
            script: "gst_webrtc_peer.py",
            arguments: [
                "whep", "--url", "http://127.0.0.1:\(daemon.port)/v1/whep/gstreamer/\(created.stream.streamId)", "--token",
                try await daemon.token(session: "gstreamer", role: .subscriber), "--seconds", "5", "--codec", codec,
            ], python: "/usr/bin/python3")
        let played = await player.finish(within: .seconds(60))
        let sent = await publisher.finish(within: .seconds(60))
        await watcher.close()
        try await daemon.stop()
        #expect(sent.status == 0, "WHIP publisher: \(sent.output) \(sent.errors.suffix(2000))")
        #expect(played.status == 0, "WHEP player: \(played.output) \(played.errors.suffix(2000))")
        #expect((played.report["videoFrames"] as? Int ?? 0) >= 30, "decoded video frames: \(played.report)")
        #expect((played.report["audioFrames"] as? Int ?? 0) >= 50, "decoded audio frames: \(played.report)")
        #expect(played.report["width"] as? Int == 320 && played.report["height"] as? Int == 240)
        #expect(sent.report["deleteStatus"] as? Int == 200 && played.report["deleteStatus"] as? Int == 200)
        if let offered = sent.report["offerSentAt"] as? Double, let connect = sent.report["connectSeconds"] as? Double,
            let playerOffered = played.report["offerSentAt"] as? Double, let decoded = played.report["firstFrameAt"] as? Double
        {
            print(
                "webrtc-interop gstreamer \(codec) whip_post_to_connected_ms=\(Int(connect * 1000)) whep_post_to_first_decoded_frame_ms=\(Int((decoded - playerOffered) * 1000)) "
                    + "whip_post_to_whep_frame_ms=\(Int((decoded - offered) * 1000))")
        }
    }

    @Test func chromiumSeesAndHearsAnotherTabFallsBackToAudioUnderLossRecoversAndSurvivesADroppedWebSocket() async throws {
        let daemon = try await DaemonHarness.start { configuration in
            configuration.media.faultInjection = true
            configuration.signaling.reconnection.grace = .seconds(20)
        }
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: [
                "--base", "http://127.0.0.1:\(daemon.port)", "--session", "browser", "--rest-token", try await daemon.restToken(),
                "--timeout", "40", "--drop-websocket", "--bandwidth",
            ])
        let outcome = await browser.finish(within: .seconds(150))
        let planeStatistics = await daemon.daemon.mediaStatistics()
        try await daemon.stop()
        let report = outcome.report
        #expect(outcome.status == 0, "browser: \(outcome.output) \(outcome.errors.suffix(4000))")
        #expect((report["framesDecoded"] as? Int ?? 0) > 30, "\(report)")
        #expect((report["totalSamplesReceived"] as? Int ?? 0) > 0, "\(report)")
        let fault = report["fault"] as? [String: Any] ?? [:]
        #expect(fault["videoDisabledMs"] != nil, "the page showed video disabled for quality: \(fault)")
        #expect(fault["videoEnabledMs"] != nil, "the page showed video enabled again: \(fault)")
        #expect(planeStatistics.drops["faultInjected", default: 0] > 0)
        let reconnect = report["reconnect"] as? [String: Any] ?? [:]
        #expect(reconnect["reconnectedMs"] != nil, "the page came back on its own connection and the other tab saw nothing: \(reconnect)")
        let bandwidth = report["bandwidth"] as? [String: Any] ?? [:]
        #expect(bandwidth["downlinkRecoveredMs"] != nil, "the estimate followed the downlink cap and came back: \(bandwidth)")
        #expect(bandwidth["uplinkRecoveredMs"] != nil, "the publisher's encoder settled under the uplink cap and came back: \(bandwidth)")
        print("webrtc-interop chromium bandwidth \(bandwidth)")
        print(
            "webrtc-interop chromium srtp=\(report["srtpCipher"] ?? "-") join_to_first_frame_ms=\(report["joinToFirstFrameMs"] ?? "-") "
                + "disabled_ms=\(fault["videoDisabledMs"] ?? "-") enabled_ms=\(fault["videoEnabledMs"] ?? "-") "
                + "reconnected_ms=\(reconnect["reconnectedMs"] ?? "-") frames_after_ms=\(reconnect["framesAfterMs"] ?? "-")")
    }

    /// Two Chromium tabs on node B's demo page join a session node A serves (the page's client
    /// follows the redirect); node A drains, both tabs move to another node by themselves, tab A
    /// publishes again and tab B decodes it there.
    @Test func chromiumTabsMoveToAnotherNodeWhenTheirNodeDrains() async throws {
        let cluster = try await ClusterFixture.start(nodes: 3)
        let (a, b) = (cluster.nodes[0], cluster.nodes[1])
        #expect(try await a.http("POST", "/v1/sessions", token: try await a.restToken(), body: #"{"sessionId":"moving"}"#).status == 201)
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-drain-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: ["--base", "http://\(b.configuration.host):\(b.port)", "--session", "moving", "--timeout", "40", "--drain-marker", marker])
        let deadline = ContinuousClock.now + .seconds(120)
        while !FileManager.default.fileExists(atPath: marker), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let nodeBefore = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
        if FileManager.default.fileExists(atPath: marker) { try await a.stop() }
        let outcome = await browser.finish(within: .seconds(150))
        await cluster.stop()
        #expect(nodeBefore == a.webSocketURL, "the pages were sent to the session's node")
        #expect(outcome.status == 0, "browser: \(outcome.output) \(outcome.errors.suffix(4000))")
        let drain = outcome.report["drain"] as? [String: Any] ?? [:]
        #expect(drain["movedMsA"] != nil && drain["movedMsB"] != nil && drain["framesAgainMs"] != nil, "\(drain)")
        print("webrtc-interop chromium drain: moved A \(drain["movedMsA"] ?? "-") ms, B \(drain["movedMsB"] ?? "-") ms, 30 frames decoded again after \(drain["framesAgainMs"] ?? "-") ms")
    }

    /// Chromium publishes three simulcast encodings through the demo page (rid-named, no SSRC
    /// announced); a second tab subscribes asking for 320×180 and decodes that layer, then asks for
    /// 1280×720 in its tile's picker and decodes a larger one.
    @Test func chromiumPublishesSimulcastAndAnotherTabDecodesTheLayerItPrefers() async throws {
        let daemon = try await DaemonHarness.start()
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: ["--base", "http://127.0.0.1:\(daemon.port)", "--session", "simulcast", "--simulcast", "--timeout", "40"])
        let outcome = await browser.finish(within: .seconds(120))
        try await daemon.stop()
        let simulcast = outcome.report["simulcast"] as? [String: Any] ?? [:]
        #expect(outcome.status == 0, "browser: \(outcome.output) \(outcome.errors.suffix(4000))")
        let low = simulcast["lowWidth"] as? Int ?? 0
        let high = simulcast["highWidth"] as? Int ?? 0
        #expect((1...320).contains(low), "decoded width with 320x180 preferred: \(simulcast)")
        #expect(high > low, "decoded width after 1280x720 preferred: \(simulcast)")
        let published = (simulcast["publisherLayers"] as? [[String: Any]] ?? []).compactMap { $0["width"] as? Int }
        #expect(published.count == 3, "the publisher's encodings: \(simulcast)")
        let learned = (simulcast["streamLayers"] as? [[String: Any]] ?? []).compactMap { $0["width"] as? Int }
        #expect(learned == published, "the layers the router learned and announced: \(simulcast)")
        print(
            "webrtc-interop chromium simulcast published_widths=\(published) low_width=\(low) high_width=\(high) "
                + "highest_width=\(simulcast["highestWidth"] ?? "-") up_switch_ms=\(simulcast["upSwitchMs"] ?? "-")")
    }

    /// Both tabs in a network namespace whose nftables drop every UDP datagram: their checks to the
    /// UDP candidate never arrive, they connect to the worker's passive TCP candidate instead, and
    /// tab B decodes tab A's video and hears its audio over ICE-TCP (DTLS and SRTP in RFC 4571 frames).
    @Test func chromiumBehindANetworkThatDropsUDPPublishesAndDecodesOverICETCP() async throws {
        let network = try IsolatedNetwork(blocking: .udp, subnet: 1)
        defer { network.remove() }
        let daemon = try await DaemonHarness.start { configuration in
            configuration.host = network.hostAddress
            configuration.media.listenAddress = network.hostAddress
        }
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: [
                "--base", "http://\(network.hostAddress):\(daemon.port)", "--session", "udp-blocked", "--timeout", "40",
                // Beyond loopback the daemon gives the page no development token.
                "--token-a", try await daemon.token(session: "udp-blocked", role: .publisher, data: "name=A"),
                "--token-b", try await daemon.token(session: "udp-blocked", role: .publisher, data: "name=B"),
            ],
            prefix: network.commandPrefix)
        let outcome = await browser.finish(within: .seconds(120))
        let planeStatistics = await daemon.daemon.mediaStatistics()
        try await daemon.stop()
        let report = outcome.report
        #expect(outcome.status == 0, "browser: \(outcome.output) \(outcome.errors.suffix(4000))")
        #expect((report["framesDecoded"] as? Int ?? 0) > 30, "\(report)")
        #expect((report["totalSamplesReceived"] as? Int ?? 0) > 0, "\(report)")
        let pair = report["candidatePair"] as? [String: [String: Any]] ?? [:]
        #expect(pair["remote"]?["protocol"] as? String == "tcp", "the selected pair: \(pair)")
        #expect(pair["remote"]?["port"] as? Int == Int(daemon.daemon.iceTCPPorts[0]), "the selected pair: \(pair)")
        let accepted = planeStatistics.workerDetails.reduce(0) { $0 + $1.tcpConnectionsAccepted }
        #expect(accepted >= 3, "the publisher's and the subscriber's connections: \(accepted)")
        print("webrtc-interop chromium ice-tcp join_to_first_frame_ms=\(report["joinToFirstFrameMs"] ?? "-") srtp=\(report["srtpCipher"] ?? "-")")
    }

    /// A network that passes nothing but TCP to port 443 (HTTPS): no UDP, no TCP to the worker's
    /// ICE-TCP port. The daemon serves the page on 443 of the host side's first address and coturn
    /// takes 443 of its second, as docs/turn.md deploys them side by side; the only way for media is
    /// TURN over TLS, relayed to the SFU over UDP outside the client's network.
    @Test(.stopsWhatItStarts) func chromiumBehindANetworkThatPassesOnlyTCP443PublishesAndDecodesThroughTURNOverTLS() async throws {
        let network = try IsolatedNetwork(blocking: .allButTCP(port: 443), subnet: 2)
        defer { network.remove() }
        let turn = try await PrivateTURNServer.start(
            sharedSecret: TURNDeliveryTests.secret, sfuAddress: network.hostAddress, tlsOn: network.secondHostAddress)
        let turnConfiguration = try TURNDeliveryTests.turnConfiguration(urls: [
            "turns:\(network.secondHostAddress):\(PrivateTURNServer.tlsPort)?transport=tcp"
        ])
        let daemon = try await DaemonHarness.start { configuration in
            configuration.host = network.hostAddress
            configuration.port = 443
            configuration.media.listenAddress = network.hostAddress
            configuration.signaling.turn = turnConfiguration
        }
        let spki = try #require(turn.certificateSPKIHash)
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: [
                "--base", "http://\(network.hostAddress):\(daemon.port)", "--session", "https-only", "--timeout", "40",
                "--token-a", try await daemon.token(session: "https-only", role: .publisher, data: "name=A"),
                "--token-b", try await daemon.token(session: "https-only", role: .publisher, data: "name=B"),
                // coturn's certificate is self-signed for this run, and Chromium checks a TURN
                // server's certificate as it checks a site's: with no flag no media flows. Of the
                // ways to make it trust this one, this trusts exactly its key, so any other
                // certificate still fails as it would in production; --ignore-certificate-errors
                // works too but accepts every certificate.
                "--chromium-flag=--ignore-certificate-errors-spki-list=\(spki)",
            ],
            prefix: network.commandPrefix)
        let outcome = await browser.finish(within: .seconds(120))
        try await daemon.stop()
        await turn.stop()
        let report = outcome.report
        #expect(outcome.status == 0, "browser: \(outcome.output) \(outcome.errors.suffix(4000))")
        #expect((report["framesDecoded"] as? Int ?? 0) > 30, "\(report)")
        #expect((report["totalSamplesReceived"] as? Int ?? 0) > 0, "\(report)")
        let pair = report["candidatePair"] as? [String: [String: Any]] ?? [:]
        #expect(pair["local"]?["candidateType"] as? String == "relay", "the selected pair: \(pair)")
        #expect(pair["local"]?["relayProtocol"] as? String == "tls", "the selected pair: \(pair)")
        #expect(pair["local"]?["address"] as? String == network.secondHostAddress, "the selected pair: \(pair)")
        #expect(pair["remote"]?["address"] as? String == network.hostAddress, "the selected pair: \(pair)")
        #expect(pair["remote"]?["protocol"] as? String == "udp", "coturn relays to the SFU over UDP: \(pair)")
        print("webrtc-interop chromium turn-tls join_to_first_frame_ms=\(report["joinToFirstFrameMs"] ?? "-") srtp=\(report["srtpCipher"] ?? "-")")
    }
}
