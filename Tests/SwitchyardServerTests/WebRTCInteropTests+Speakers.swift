import Testing

/// Speaker events in the browser client and the demo page (docs/speakers.md).
extension WebRTCInteropTests {
    /// Chromium tab A captures speech-like bursts from a WAV, tab B silence: the router reads the
    /// RFC 6464 levels Chromium sends (A's statistics show a level and speaking), B's page highlights
    /// A's tile as the active speaker and meters its level, and A's Mic off frees the floor
    /// (`activeSpeakerChanged` null) and takes the highlight away.
    @Test func chromiumHighlightsTheTalkingTabAsActiveSpeakerUntilItsMicGoesOff() async throws {
        let daemon = try await DaemonHarness.start()
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: [
                "--base", "http://127.0.0.1:\(daemon.port)", "--session", "speakers", "--rest-token", try await daemon.restToken(),
                "--speakers", "--timeout", "40",
            ])
        let outcome = await browser.finish(within: .seconds(120))
        try await daemon.stop()
        #expect(outcome.status == 0, "browser: \(outcome.output) \(outcome.errors.suffix(4000))")
        let report = outcome.report["speakers"] as? [String: Any] ?? [:]
        #expect((report["routerAudioLevel"] as? Double ?? 0) > 0, "\(report)")
        #expect((report["levelOnBsMeter"] as? Double ?? 0) > 0, "\(report)")
        #expect(report["micOffToNullMs"] != nil, "\(report)")
        print(
            "webrtc-interop chromium speakers: first burst to B's activeSpeakerChanged \(report["firstSpeechToEventMs"] ?? "-") ms,"
                + " to B's highlight \(report["firstSpeechToHighlightMs"] ?? "-") ms; Mic off to null \(report["micOffToNullMs"] ?? "-") ms;"
                + " router level \(report["routerAudioLevel"] ?? "-")")
    }
}
