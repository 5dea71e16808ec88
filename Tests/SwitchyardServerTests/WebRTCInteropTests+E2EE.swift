import Foundation
import Testing

/// End-to-end encryption (docs/e2ee.md) with Chromium: switchyard.js seals every frame in encoded
/// transforms with a key from the session's secret, and the router forwards what it cannot read.
extension WebRTCInteropTests {
    /// In a session created with `e2ee: true`, tab A publishes three simulcast layers with the secret
    /// and tab B, with the same secret, decodes them: at 320x180, at a larger layer after its picker
    /// asks for 1280x720, and at 320x180 again, with no frame that failed to open. Tab C, with another
    /// secret, subscribes too: it decodes nothing and its tile says it cannot decrypt, while the
    /// router's statistics show A's audio and video sent to it.
    @Test(.stopsWhatItStarts) func chromiumTabsWithTheSecretDecodeThroughLayerSwitchesAndATabWithAnotherDecodesNothing() async throws {
        let daemon = try await DaemonHarness.start()
        let rest = try await daemon.restToken()
        let created = try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"sealed","e2ee":true}"#)
        #expect(created.status == 201)
        // C only subscribes, so that nobody else meets a stream sealed with its secret.
        let tokenC = try await daemon.token(session: "sealed", role: .subscriber, data: "name=C")
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: [
                "--base", "http://127.0.0.1:\(daemon.port)", "--session", "sealed", "--simulcast", "--timeout", "40",
                "--e2ee-secret", "correct horse battery staple", "--e2ee-wrong-secret", "another secret", "--token-c", tokenC,
            ])
        let outcome = await browser.finish(within: .seconds(180))
        try await daemon.stop()

        let report = outcome.report["e2ee"] as? [String: Any] ?? [:]
        #expect(outcome.status == 0, "browser: \(outcome.output.suffix(4000)) \(outcome.errors.suffix(4000))")
        // B: every layer decoded, not a frame that failed to open.
        let simulcast = outcome.report["simulcast"] as? [String: Any] ?? [:]
        #expect((simulcast["lowWidth"] as? Int ?? 0) > 0 && (simulcast["lowWidth"] as? Int ?? 0) <= 320, "\(simulcast)")
        #expect((simulcast["highWidth"] as? Int ?? 0) > (simulcast["lowWidth"] as? Int ?? 0), "\(simulcast)")
        #expect((report["downSwitchWidth"] as? Int ?? 0) > 0 && (report["downSwitchWidth"] as? Int ?? 999) <= 320, "\(report)")
        #expect((report["decryptionFailuresB"] as? [String: Any])?.isEmpty == true, "\(report)")
        #expect((report["decryptionFailuresBAfterC"] as? [String: Any])?.isEmpty == true, "\(report)")
        #expect(report["tileB"] as? String == "encrypted", "\(report)")
        // No RED in an encrypted session: A sends plain Opus.
        #expect(report["publisherAudioCodec"] as? String == "audio/opus", "\(report)")
        // C: packets arrive, nothing decodes, and its page says why.
        let tileC = report["tileC"] as? [String: Any] ?? [:]
        #expect(tileC["state"] as? String == "undecryptable", "\(report)")
        let videoC = report["videoC"] as? [String: Any] ?? [:]
        #expect((videoC["packetsReceived"] as? Int ?? 0) > 50, "\(report)")
        #expect((videoC["framesDecoded"] as? Int ?? 0) == 0, "\(report)")
        let failuresC = report["decryptionFailuresC"] as? [String: Any] ?? [:]
        #expect((failuresC["video"] as? Int ?? 0) > 0 && (failuresC["audio"] as? Int ?? 0) > 0, "\(report)")
        let routerC = report["routerC"] as? [String: Any] ?? [:]
        let sentVideo = (routerC["video"] as? [String: Any])?["packetsSent"] as? Int ?? 0
        let sentAudio = (routerC["audio"] as? [String: Any])?["packetsSent"] as? Int ?? 0
        #expect(sentVideo > 50 && sentAudio > 50, "the router forwarded to C: \(routerC)")
        print(
            "webrtc-interop chromium e2ee: B decoded \(simulcast["lowWidth"] ?? "-") → \(simulcast["highWidth"] ?? "-") → \(report["downSwitchWidth"] ?? "-") wide "
                + "(\(report["framesDecodedB"] ?? "-") frames, failures \(report["decryptionFailuresB"] ?? "-")); C with another secret: "
                + "\(videoC["packetsReceived"] ?? "-") video packets, \(videoC["framesDecoded"] ?? "-") frames decoded, failures \(failuresC); "
                + "router sent C \(sentVideo) video and \(sentAudio) audio packets")
    }
}
