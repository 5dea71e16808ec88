import Foundation
import Testing

/// The audio fallback on a link the kernel shapes (issue 40): no fault the daemon injects itself, but a
/// token bucket on the veth into the subscriber's namespace, whose queue fills and drops at its tail.
extension WebRTCInteropTests {
    /// What the downlink is capped to: half the publisher's one VP8 encoding (about 500 kbps from
    /// Chromium's fake camera), more than its audio (about 60 kbps on the wire) or the policy's padding
    /// probe (150 kbps of RTP, about 175 on the wire); the two together just fill it.
    static let kernelCapBitsPerSecond = 250_000
    /// The cap's queue: a modest access link's buffer (4,687 bytes at 250 kbps). Long enough that the
    /// link queues before it drops, as a real bottleneck does; short enough that the delay it adds to a
    /// round trip stays under the score's 0.3 s allowance, so the policy judges the link by its loss and
    /// its bandwidth, which is what a 250 kbps link lacks.
    static let kernelCapQueue = Duration.milliseconds(150)
    /// How long the cap stays on after video went off, while B's audio must go on.
    static let kernelCapHeldSeconds = 6

    /// Chromium tab A publishes VP8 and Opus; tab B, with a subscriber token (so the only media on its
    /// link is A's stream), subscribes through the demo page from a network namespace whose downlink
    /// the kernel caps at 250 kbps once media flows. B's page must show the warning, then its video off
    /// for quality, while its audio goes on; the cap lifted, its video must come back and decode. The
    /// daemon's own event counters must show the same order, timed without the capped WebSocket's
    /// delay.
    @Test(.stopsWhatItStarts) func chromiumBehindAKernelShaped250kbpsLinkWarnsTurnsVideoOffKeepsAudioAndGetsVideoBackWhenTheCapLifts() async throws {
        let network = try IsolatedNetwork(blocking: .nothing, subnet: 3)
        defer { network.remove() }
        let daemon = try await DaemonHarness.start { configuration in
            configuration.host = network.hostAddress
            configuration.media.listenAddress = network.hostAddress
        }
        let control = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: control, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: control) }
        let restToken = try await daemon.restToken()
        let tokenA = try await daemon.token(session: "kernel-link", role: .publisher, data: "name=A")
        let tokenB = try await daemon.token(session: "kernel-link", role: .subscriber, data: "name=B")
        let browser = try InteropProcess(
            script: "browser_demo.py",
            arguments: [
                "--base", "http://\(network.hostAddress):\(daemon.port)", "--session", "kernel-link", "--timeout", "40",
                "--token-a", tokenA, "--token-b", tokenB, "--link-control", control.path, "--link-seconds", "30", "--hold-seconds", "\(Self.kernelCapHeldSeconds)",
            ],
            prefix: network.commandPrefix)
        let driver = Task { await KernelLinkDriver(network: network, daemon: daemon, control: control, restToken: restToken).run() }
        let outcome = await browser.finish(within: .seconds(180))
        driver.cancel()
        let link = await driver.value
        try await daemon.stop()

        let report = outcome.report["kernelLink"] as? [String: Any] ?? [:]
        let page = report.filter { $0.key != "timeline" }
        #expect(outcome.status == 0, "browser: \(outcome.output.suffix(6000)) \(outcome.errors.suffix(4000))")
        #expect(link.failure == nil, "driving the link: \(link.failure ?? "")")
        #expect(report["warningMs"] != nil && report["disabledMs"] != nil, "B's page: \(page)")
        #expect((report["audioPacketsWhileOff"] as? Int ?? 0) > 0, "B's audio while its video was off: \(page)")
        #expect(report["enabledMs"] != nil && report["framesResumedMs"] != nil, "B's page after the lift: \(page)")

        // The daemon's side, by its counters: which come only from B, the one subscriber.
        let warned = try #require(link.first["videoDisableWarning"], "the daemon warned: \(link.first)")
        let disabled = try #require(link.first["videoDisabled"], "the daemon turned B's video off: \(link.first)")
        let lifted = try #require(link.liftedAfter, "the cap was lifted")
        let enabled = try #require(link.first["videoEnabled"], "the daemon turned B's video on: \(link.first)")
        #expect(warned <= disabled, "warning first: \(link.first)")
        #expect(disabled < .seconds(20), "video off within 20 s of the cap: \(link.first)")
        #expect(enabled > lifted, "video came back after the cap was lifted, not under it: \(link.first), lifted \(lifted)")
        #expect(enabled - lifted < .seconds(30), "video back within 30 s of the lift: \(link.first), lifted \(lifted)")

        func ms(_ duration: Duration) -> Int { Int(duration / .milliseconds(1)) }
        print(
            "webrtc-interop chromium kernel-link \(Self.kernelCapBitsPerSecond / 1000) kbps tbf: daemon warning_ms=\(ms(warned)) disabled_ms=\(ms(disabled)) "
                + "enabled_after_lift_ms=\(ms(enabled - lifted)) (cap lifted at \(ms(lifted))); page warning_ms=\(report["warningMs"] ?? "-") "
                + "disabled_ms=\(report["disabledMs"] ?? "-") enabled_after_lift_ms=\(report["enabledMs"] ?? "-") "
                + "frames_after_lift_ms=\(report["framesResumedMs"] ?? "-") audio_packets_while_off=\(report["audioPacketsWhileOff"] ?? "-") "
                + "in the \(Self.kernelCapHeldSeconds) s held; page events \(report["events"] ?? "-"); daemon events \(link.events.map { "\($0.kind)@\(ms($0.after))" })")
        if let off = link.queueWhenOff, let atLift = link.queueAtLift {
            let seconds = (lifted - disabled) / .seconds(1)
            let arrived = atLift.sentPackets - off.sentPackets + atLift.droppedPackets - off.droppedPackets
            print(
                "webrtc-interop chromium kernel-link while B's video was off under the cap (\(ms(lifted - disabled)) ms): "
                    + "\(Int(Double(atLift.sentBytes - off.sentBytes) * 8 / seconds / 1000)) kbps through it, "
                    + "\(atLift.droppedPackets - off.droppedPackets) of \(arrived) packets dropped at its tail; "
                    + "page: audio lost \(report["audioLostWhileOff"] ?? "-") packets, concealed \(report["audioConcealedSamplesWhileOff"] ?? "-") samples in the \(Self.kernelCapHeldSeconds) s held; "
                    + "queue at the lift: \(atLift)")
        }
        for sample in link.samples { print("webrtc-interop chromium kernel-link B's downlink \(sample)") }
    }
}

/// Caps and lifts tab B's downlink when browser_demo.py asks (files in `control`), and reads the
/// daemon's audio-fallback counters and B's downlink quality while it does.
private struct KernelLinkDriver {
    struct Observed: Sendable {
        /// When each kind of event first counted, after the cap came.
        var first: [String: Duration] { events.reduce(into: [:]) { first, event in first[event.kind] = first[event.kind] ?? event.after } }
        /// Every event the counters showed, in order, with the time since the cap came.
        var events: [(kind: String, after: Duration)] = []
        var liftedAfter: Duration?
        /// The cap's queue when the daemon's counters first showed video off, and just before the lift.
        var queueWhenOff: IsolatedNetwork.QueueCounters?
        var queueAtLift: IsolatedNetwork.QueueCounters?
        /// B's downlink quality from the daemon's REST statistics, every half second under the cap.
        var samples: [String] = []
        var failure: String?
    }

    let network: IsolatedNetwork
    let daemon: DaemonHarness
    let control: URL
    let restToken: String

    func run() async -> Observed {
        var observed = Observed()
        do {
            try await request("cap")
            let capFile = control.appendingPathComponent("cap")
            guard let capRequest = try JSONSerialization.jsonObject(with: Data(contentsOf: capFile)) as? [String: Any],
                let subscriberId = capRequest["subscriberId"] as? String
            else { throw RequestFailure.noSubscriberId(file: capFile.path) }
            var seen = try await counters()
            try network.capDownlink(bitsPerSecond: WebRTCInteropTests.kernelCapBitsPerSecond, queue: WebRTCInteropTests.kernelCapQueue)
            let cappedAt = ContinuousClock.now
            try answer("capped")
            var lastSample = ContinuousClock.now - .seconds(1)
            while !Task.isCancelled {
                let now = ContinuousClock.now
                for (kind, count) in try await counters().sorted(by: { $0.key < $1.key }) where count > seen[kind, default: 0] {
                    observed.events += Array(repeating: (kind, now - cappedAt), count: count - seen[kind, default: 0])
                    seen[kind] = count
                    if kind == "videoDisabled", observed.queueWhenOff == nil { observed.queueWhenOff = try network.downlinkQueueCounters() }
                }
                if now - lastSample >= .milliseconds(500) {
                    lastSample = now
                    observed.samples.append("\(Int((now - cappedAt) / .milliseconds(1))) ms after the cap: \(try await quality(of: subscriberId))")
                }
                if observed.liftedAfter == nil, FileManager.default.fileExists(atPath: control.appendingPathComponent("lift").path) {
                    observed.queueAtLift = try network.downlinkQueueCounters()
                    try network.liftDownlinkCap()
                    observed.liftedAfter = ContinuousClock.now - cappedAt
                    try answer("lifted")
                }
                if let lifted = observed.liftedAfter, observed.events.contains(where: { $0.kind == "videoEnabled" && $0.after > lifted }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
        } catch is CancellationError {
        } catch {
            observed.failure = "\(error)"
        }
        return observed
    }

    enum RequestFailure: Error { case noSubscriberId(file: String) }

    /// Waits for browser_demo.py's request file `name`.
    private func request(_ name: String) async throws {
        while !FileManager.default.fileExists(atPath: control.appendingPathComponent(name).path) {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Writes the answer browser_demo.py waits for: now, in milliseconds since the epoch.
    private func answer(_ name: String) throws {
        let temporary = control.appendingPathComponent("\(name).tmp")
        try String(Date().timeIntervalSince1970 * 1000).write(to: temporary, atomically: false, encoding: .utf8)
        try FileManager.default.moveItem(at: temporary, to: control.appendingPathComponent(name))
    }

    /// The daemon's `switchyard_audio_fallback_events_total` counters by kind.
    private func counters() async throws -> [String: Int] {
        let text = String(decoding: try await daemon.http("GET", "/metrics", token: nil).body, as: UTF8.self)
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("switchyard_audio_fallback_events_total{kind=\"") {
            let kind = line.dropFirst("switchyard_audio_fallback_events_total{kind=\"".count).prefix { $0 != "\"" }
            counts[String(kind)] = line.split(separator: " ").last.flatMap { Double($0) }.map { Int($0) }
        }
        return counts
    }

    /// B's downlink as the daemon judges it: score, loss, estimate, the policy's state.
    private func quality(of subscriberId: String) async throws -> String {
        let body = try await daemon.http("GET", "/v1/sessions/kernel-link/subscribers/\(subscriberId)/stats", token: restToken).body
        guard let stats = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let quality = stats["quality"] as? [String: Any] else {
            return String(decoding: body, as: UTF8.self)
        }
        func number(_ key: String, _ scale: Double = 1) -> String { (quality[key] as? Double).map { String(Int(($0 * scale).rounded())) } ?? "-" }
        return "score \(number("score")) loss \(number("lossFraction", 100)) % rtt \(number("roundTripTimeSeconds", 1000)) ms "
            + "delivered \(number("deliveredBitrate", 0.001)) kbps available \(number("availableBitrate", 0.001)) kbps \(quality["audioFallbackState"] ?? "-")"
    }
}
