import Foundation
import SignalingProtocol
import SwitchyardClient
import Testing

/// Simulcast through a real daemon: a Swift client publishes three libvpx encodings of the test
/// pattern over plain SRTP, and subscribers with different preferences decode the layer that fits,
/// across switches, without decoder errors, counter jumps, PictureID gaps or freezes.
@Suite(.serialized) struct SimulcastEndToEndTests {
    static let layers = [VideoLayerSettings(width: 256, height: 144, bitrate: 150_000), VideoLayerSettings(width: 512, height: 288, bitrate: 400_000)]
    static let media: EncodedMedia = try! EncodedMedia(
        settings: MediaSettings(
            videoBitrate: 900_000, audioBitrate: 24_000, width: 768, height: 432, frameRate: 30, loopSeconds: 2, lowerLayers: layers))

    /// Waits until `subscriber` decodes pictures `width` wide, up to `timeout`; returns its statistics.
    private func decoded(_ subscriber: Subscriber, width: Int, timeout: Duration = .seconds(6)) async throws -> SubscriberMediaStatistics {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let statistics = await subscriber.statistics()
            if statistics.decodedWidth == width { return statistics }
            try await Task.sleep(for: .milliseconds(100))
        }
        return await subscriber.statistics()
    }

    private func expectClean(_ statistics: SubscriberMediaStatistics, _ label: String) {
        #expect(statistics.decodeErrors == 0, "\(label): \(statistics)")
        #expect(statistics.counterMismatches == 0, "\(label): \(statistics)")
        #expect(statistics.pictureIDGaps == 0, "\(label): \(statistics)")
        #expect(statistics.freezeCount == 0, "\(label): \(statistics)")
        #expect(statistics.framesDropped == 0, "\(label): \(statistics)")
    }

    @Test func eachSubscriberDecodesTheLayerItsPreferenceAllowsAndSwitchesWithoutAGlitch() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let alice = try await harness.client("simulcast", .publisher, loop: loop)
        let bob = try await harness.client("simulcast", .subscriber, loop: loop)
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        #expect(
            publisher.stream.videoLayers
                == [
                    VideoLayerInfo(width: 256, height: 144, frameRate: 30), VideoLayerInfo(width: 512, height: 288, frameRate: 30),
                    VideoLayerInfo(width: 768, height: 432, frameRate: 30),
                ])
        #expect(publisher.stream.videoDimensions == VideoDimensions(width: 768, height: 432))

        let best = try await bob.subscribe(to: publisher.streamId, settings: SubscriberSettings(decodes: true))
        let small = try await bob.subscribe(
            to: publisher.streamId, settings: SubscriberSettings(decodes: true, preferredResolution: VideoDimensions(width: 320, height: 240)))
        let medium = try await bob.subscribe(
            to: publisher.streamId, settings: SubscriberSettings(decodes: true, preferredResolution: VideoDimensions(width: 640, height: 360)))
        let upgrades = Task { () -> SubscriberLayerChange? in
            for await event in small.events {
                if case .subscriberVideoLayerChanged(let change) = event, change.layer?.width == 768 { return change }
            }
            return nil
        }

        #expect(try await decoded(best, width: 768).decodedWidth == 768)
        #expect(try await decoded(small, width: 256).decodedWidth == 256)
        #expect(try await decoded(medium, width: 512).decodedWidth == 512)
        try await Task.sleep(for: .seconds(1))
        for (subscriber, label) in [(best, "best"), (small, "small"), (medium, "medium")] {
            let statistics = await subscriber.statistics()
            #expect(statistics.framesDecoded >= 30, "\(label): \(statistics)")
            expectClean(statistics, label)
        }
        let stats = try await small.serverStatistics()
        #expect(stats.video?.layer == VideoLayerInfo(width: 256, height: 144, frameRate: 30))
        #expect(stats.video?.layerReason == "preference")
        #expect(try await small.rtcStatsReport().contains { $0.type == "outbound-rtp" && $0.frameWidth == 256 })

        // Up on a raised preference, down on a lowered one: each on the target's key frame, seamlessly.
        // Up waits until the receiver's estimate, made on the low layer, shows room: the router probes.
        try await small.setPreferredResolution(VideoDimensions(width: 1280, height: 720))
        try await best.setPreferredResolution(VideoDimensions(width: 256, height: 144))
        let upgraded = try await decoded(small, width: 768, timeout: .seconds(15))
        let downgraded = try await decoded(best, width: 256)
        #expect(upgraded.decodedWidth == 768)
        #expect(downgraded.decodedWidth == 256)
        let event = await upgrades.value
        #expect(event?.targetLayer == VideoLayerInfo(width: 768, height: 432, frameRate: 30))
        #expect(event?.reason == "preference")
        try await Task.sleep(for: .seconds(1))
        expectClean(await small.statistics(), "small after the switch up")
        expectClean(await best.statistics(), "best after the switch down")
        // Dropping the preference means the best the network allows: the receiver's estimate, made on
        // the low layer, shows no room for more until the router probes for it.
        try await best.setPreferredResolution(nil)
        #expect(try await decoded(best, width: 768, timeout: .seconds(15)).decodedWidth == 768)
        expectClean(await best.statistics(), "best back up")

        await bob.disconnect()
        await alice.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func badLayersAndPreferencesAreRefusedWithTheFieldNamed() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let alice = try await harness.client("simulcast-bad", .publisher, loop: loop)
        let upsideDown = try EncodedMedia(
            settings: MediaSettings(
                videoBitrate: 150_000, audioBitrate: 0, width: 256, height: 144, frameRate: 15, loopSeconds: 1,
                lowerLayers: [VideoLayerSettings(width: 512, height: 288, bitrate: 300_000)]))
        await #expect {
            _ = try await alice.publish(PublisherSettings(media: upsideDown))
        } throws: { error in
            "\(error)".contains("params.video.layers[1]") && "\(error)".contains("larger than the layer before it")
        }
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        await #expect {
            _ = try await alice.subscribe(
                to: publisher.streamId, settings: SubscriberSettings(preferredResolution: VideoDimensions(width: 0, height: 10)))
        } throws: { error in
            "\(error)".contains("params.preferredResolution: must be 1-16384 pixels each way, not 0x10")
        }
        await #expect {
            _ = try await alice.subscribe(to: publisher.streamId, settings: SubscriberSettings(preferredFrameRate: -1))
        } throws: { error in
            "\(error)".contains("params.preferredFrameRate: must be above 0 and at most 240, not -1.0")
        }
        // The session serves on: a good subscription still works.
        let subscriber = try await alice.subscribe(to: publisher.streamId, settings: SubscriberSettings(preferredFrameRate: 15))
        await #expect {
            try await subscriber.setPreferredFrameRate(500)
        } throws: { error in
            "\(error)".contains("params.preferredFrameRate")
        }
        await alice.disconnect()
        await loop.stop()
        try await harness.stop()
    }
}
