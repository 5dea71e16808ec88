import Foundation
import SignalingProtocol
import SwitchyardClient
import Testing

/// Opus RED (docs/red.md) with Chromium.
extension WebRTCInteropTests {
    /// Chromium tab A publishes through the demo page; the router's answer lists RED first, so A
    /// sends its audio as RED, and tab B, which keeps RED in its answer, receives it whole. A plain
    /// Swift subscriber that does not take RED decodes every audio frame from the primary frames the
    /// router passes it, and the router counts no packet it could not forward.
    @Test func chromiumSendsRedWhichATabTakesWholeAndAPlainSubscriberGetsAsOpus() async throws {
        let daemon = try await DaemonHarness.start()
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: ["--base", "http://127.0.0.1:\(daemon.port)", "--session", "red", "--linger", "10", "--timeout", "40"])
        let loop = try MediaLoop()
        let listener = try await Session.connect(
            url: "ws://127.0.0.1:\(daemon.port)/v1/ws", sessionId: "red", token: try await daemon.token(session: "red", role: .subscriber),
            options: SessionOptions(mediaLoop: loop))
        // The first stream is page A's (page B subscribes only).
        let created = await next(listener.events, timeout: .seconds(90)) { if case .streamCreated = $0 { true } else { false } }
        guard case .streamCreated(let stream)? = created else {
            Issue.record("page A published nothing: \(await browser.finish(within: .seconds(5)).errors.suffix(2000))")
            try await daemon.stop()
            return
        }
        let subscriber = try await listener.subscribe(to: stream.streamId, settings: SubscriberSettings(subscribeToVideo: false, decodes: true))
        try await Task.sleep(for: .seconds(5))
        let received = await subscriber.statistics()
        let (status, body) = try await daemon.http(
            "GET", "/v1/sessions/red/streams/\(stream.streamId)/stats", token: try await daemon.restToken())
        let published = try JSONDecoder().decode(PublisherStatistics.self, from: body)
        let outcome = await browser.finish(within: .seconds(120))
        await listener.disconnect()
        await loop.stop()
        try await daemon.stop()

        #expect(outcome.status == 0, "browser: \(outcome.output) \(outcome.errors.suffix(4000))")
        let linger = outcome.report["linger"] as? [String: Any] ?? [:]
        // Chromium's statistics name the codec inside (audio/opus); the router's counters show RED.
        let routerAudio = linger["routerAudio"] as? [String: Any] ?? [:]
        #expect((routerAudio["redundantPacketsSent"] as? Int ?? 0) > 200, "B took RED whole: \(linger)")
        #expect((linger["audioSamples"] as? Int ?? 0) > 0, "\(linger)")
        #expect(status == 200)
        #expect((published.audio?.redundantPacketsReceived ?? 0) > 100, "\(String(decoding: body, as: UTF8.self))")
        #expect(published.audio?.unforwardableRedundantPackets == 0)
        // 5 s of 20 ms frames, all of them decoded as plain Opus, none concealed on loopback.
        #expect(received.audioFramesDecoded >= 200, "\(received)")
        #expect(received.decodeErrors == 0)
        #expect(received.audioFramesConcealed <= 2, "\(received)")
        print(
            "webrtc-interop chromium RED: B got \(routerAudio["redundantPacketsSent"] ?? "-") RED packets whole, "
                + "concealed \(linger["audioConcealedSamples"] ?? "-") samples; router counted \(published.audio?.redundantPacketsReceived ?? 0) RED packets; a plain subscriber decoded "
                + "\(received.audioFramesDecoded) frames, concealed \(received.audioFramesConcealed)")
    }
}
