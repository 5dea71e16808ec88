import Foundation
import SignalingProtocol
import Testing

/// Archives in the browser client and the demo page (docs/archiving.md).
extension WebRTCInteropTests {
    /// Chromium tab A publishes through the demo page and tab B subscribes; the app's backend
    /// records the session: both pages show the recording indicator until it stops, and the file of
    /// A's stream (Chromium's own VP8 and Opus) decodes whole.
    @Test func chromiumShowsTheRecordingIndicatorAndItsStreamIsRecorded() async throws {
        let daemon = try await DaemonHarness.start()
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: [
                "--base", "http://127.0.0.1:\(daemon.port)", "--session", "recorded", "--rest-token",
                try await daemon.restToken(),
                "--archive", "--timeout", "40",
            ])
        let outcome = await browser.finish(within: .seconds(120))
        #expect(outcome.status == 0, "browser: \(outcome.output) \(outcome.errors.suffix(4000))")
        let report = outcome.report["archive"] as? [String: Any] ?? [:]
        let stopped = try JSONDecoder().decode(
            ArchiveInfo.self, from: JSONSerialization.data(withJSONObject: report["archive"] ?? [:]))
        let streamId = outcome.report["streamId"] as? String
        let file = try #require(stopped.files.first { $0.streamId == streamId }, "\(stopped)")
        let path = daemon.configuration.archives!.directory + "/\(stopped.id)/\(file.name)"
        let probe = try ArchiveProbe(path: path)
        #expect(Set(probe.codecs) == ["vp8", "opus"], "\(probe.codecs)")
        #expect(probe.firstVideoPacketIsKey && probe.videoPackets > 30, "\(probe.videoPackets) video frames")
        #expect(try ArchiveProbe.decodingErrors(path: path) == "")
        try await daemon.stop()
        print(
            "webrtc-interop chromium archive: indicator after \(report["indicatorMs"] ?? "-") ms, \(probe.videoPackets) frames in \(probe.duration) s"
        )
    }
}
