import Testing

/// Force mute in the browser client and the demo page (docs/protocol.md#force-mute).
extension WebRTCInteropTests {
    /// Chromium tab A publishes through the demo page and tab B subscribes; the app's backend mutes
    /// A's stream over REST: A's page shows the notice and disables its microphone, B receives no
    /// audio packet, and A's mic button brings the audio back.
    @Test func chromiumShowsAModeratorsMuteAndItsSubscriberHearsNothingUntilTheMicIsBackOn() async throws {
        let daemon = try await DaemonHarness.start()
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: [
                "--base", "http://127.0.0.1:\(daemon.port)", "--session", "muted", "--rest-token", try await daemon.restToken(),
                "--force-mute", "--timeout", "40",
            ])
        let outcome = await browser.finish(within: .seconds(120))
        try await daemon.stop()
        #expect(outcome.status == 0, "browser: \(outcome.output) \(outcome.errors.suffix(4000))")
        let report = outcome.report["forceMute"] as? [String: Any] ?? [:]
        #expect(report["audioPacketsWhileMuted"] as? Int == 0, "\(report)")
        #expect(report["audioBackMs"] != nil, "\(report)")
        print("webrtc-interop chromium force mute: notice after \(report["noticeMs"] ?? "-") ms, audio back \(report["audioBackMs"] ?? "-") ms after the mic button")
    }
}
