import Dispatch
import Glibc
import MediaControl
import MediaTestSupport
import RTPWire
import SRTP
import Synchronization
import Testing

@testable import MediaRouter

/// The audio-fallback policy end to end over real UDP and SRTP with its default settings: one
/// publisher of audio and video, two subscribers that send receiver reports every 500 ms like a
/// client, and one of them behind a downlink that loses 30 % of packets for a while.
@Suite(.serialized) struct AudioFallbackTests {
    static let audioSSRC: UInt32 = 0x2222_0001
    static let videoSSRC: UInt32 = 0x2222_0002
    static let lossStart = 3.0
    static let lossEnd = 13.0
    static let runEnd = 21.0

    /// What one subscriber saw, in seconds from the start.
    struct Reception {
        var videoPayloadTimes: [Double] = []
        var audioTimes: [Double] = []
        var paddingTimes: [Double] = []
        /// Video SSRC packets in arrival order: time, sequence number, and whether the VP8 payload
        /// header marks a key frame (nil for padding-only probe packets).
        var video: [(time: Double, sequenceNumber: UInt16, isKeyFrame: Bool?)] = []
    }

    /// A subscriber: receives, loses what the simulated downlink loses, keeps RFC 3550 statistics per
    /// SSRC, and sends receiver reports.
    final class ReportingSubscriber {
        let peer: TestPeer
        let ssrc = UInt32.random(in: 1...UInt32.max)
        var statistics: [UInt32: ReceiverStatistics] = [:]
        var reception = Reception()
        var generator = SystemRandomNumberGenerator()
        var lastReportAt = 0.0

        init(peer: TestPeer) { self.peer = peer }

        func drain(at time: Double, lossProbability: Double, audioSSRC: UInt32, videoSSRC: UInt32, now: UInt64) {
            while let packet = peer.receiveIfQueued() {
                guard case .rtp(let sequenceNumber, let timestamp, let ssrc, _, let payload) = packet else { continue }
                if Double.random(in: 0..<1, using: &generator) < lossProbability { continue }
                var stats = statistics[ssrc] ?? ReceiverStatistics(clockRate: ssrc == audioSSRC ? 48_000 : 90_000)
                _ = stats.record(sequenceNumber: sequenceNumber, rtpTimestamp: timestamp, arrivalNanoseconds: now)
                statistics[ssrc] = stats
                if ssrc == audioSSRC {
                    reception.audioTimes.append(time)
                } else if ssrc == videoSSRC {
                    if payload.isEmpty {
                        reception.paddingTimes.append(time)
                        reception.video.append((time, sequenceNumber, nil))
                    } else {
                        reception.videoPayloadTimes.append(time)
                        reception.video.append((time, sequenceNumber, payload.count > 1 && payload[1] & 0x01 == 0))
                    }
                }
            }
        }

        func reportIfDue(at time: Double, now: UInt64) throws {
            guard time - lastReportAt >= 0.5 else { return }
            lastReportAt = time
            var blocks: [RTCPReportBlock] = []
            for (ssrc, var stats) in statistics {
                if let block = stats.makeReportBlock(ssrc: ssrc, nowNanoseconds: now) { blocks.append(block) }
                statistics[ssrc] = stats
            }
            guard !blocks.isEmpty else { return }
            let sender = ssrc
            try peer.sendRTCP { writer throws(RTCPError) in
                try RTCPReceiverReport.write(senderSSRC: sender, reportBlocks: blocks, into: &writer)
            }
        }
    }

    /// A publisher of audio and video and two subscribers, with the media plane's audio-fallback
    /// events recorded as they come.
    final class FallbackSession {
        let plane: MediaPlane
        let start = ContinuousClock.now
        let events = EventLog()
        var collector: Task<Void, Never>?
        let publisher: TestPeer
        let publisherTransport: TransportID
        var subscribers: [ReportingSubscriber] = []
        var transports: [TransportID] = []
        var ssrcs: [(audio: UInt32, video: UInt32)] = []

        init(portBase: UInt16) async throws {
            plane = try MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: portBase...(portBase + 49)))
            let router = try await plane.createRouter()
            publisher = try TestPeer()
            let parameters = try await plane.createPlainTransport(router: router, options: PlainTransportOptions(clientSRTP: publisher.srtpParameters))
            try publisher.connect(to: parameters)
            publisherTransport = parameters.transportID
            let audio = try await plane.produce(
                transport: publisherTransport, options: ProducerOptions(codec: CodecParameters(name: .opus, payloadType: 111), ssrc: AudioFallbackTests.audioSSRC))
            let video = try await plane.produce(
                transport: publisherTransport, options: ProducerOptions(codec: CodecParameters(name: .vp8, payloadType: 96), ssrc: AudioFallbackTests.videoSSRC))
            for _ in 0..<2 {
                let peer = try TestPeer()
                let parameters = try await plane.createPlainTransport(
                    router: router, options: PlainTransportOptions(remoteAddress: peer.address, clientSRTP: peer.srtpParameters))
                try peer.connect(to: parameters)
                let audioConsumer = try await plane.consume(transport: parameters.transportID, producer: audio, pauseReasons: [])
                let videoConsumer = try await plane.consume(transport: parameters.transportID, producer: video, pauseReasons: [])
                subscribers.append(ReportingSubscriber(peer: peer))
                transports.append(parameters.transportID)
                ssrcs.append((audioConsumer.ssrc, videoConsumer.ssrc))
            }
            let (plane, events, start) = (plane, events, start)
            collector = Task {
                for await event in plane.events {
                    if case .audioFallback = event { events.entries.withLock { $0.append((FallbackSession.seconds(since: start), event)) } }
                }
            }
        }

        static func seconds(since start: ContinuousClock.Instant) -> Double {
            let duration = ContinuousClock.now - start
            return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        func elapsed() -> Double { Self.seconds(since: start) }

        func close() {
            collector?.cancel()
            plane.shutdown()
        }

        /// The audio-fallback transitions of one side of one transport, with their times.
        func transitions(of transport: TransportID, side: AudioFallbackSide) -> [(time: Double, transition: AudioFallbackTransition)] {
            events.entries.withLock { $0 }.compactMap { entry in
                guard case .audioFallback(transport, side, let transition) = entry.event else { return nil }
                return (entry.time, transition)
            }
        }

        /// Runs the publisher and subscribers on a thread of their own, off the test's cooperative pool;
        /// the peers are not touched elsewhere until it has finished.
        func run(until end: Double, downlinkLoss: @escaping (Int, Double) -> Double = { _, _ in 0 }, uplinkLoss: @escaping (Double) -> Double = { _ in 0 }) async throws {
            let drive = UncheckedBox { [self] in
                try AudioFallbackTests.drive(
                    publisher: publisher, subscribers: subscribers, ssrcs: ssrcs, until: end, elapsed: elapsed,
                    downlinkLoss: downlinkLoss, uplinkLoss: uplinkLoss)
            }
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                DispatchQueue.global().async {
                    do {
                        try drive.value()
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
    }

    @Test func aLossySubscriberFallsBackToAudioAndRecoversWhileTheOtherKeepsVideo() async throws {
        let session = try await FallbackSession(portBase: 42_300)
        defer { session.close() }
        for transport in session.transports {
            try await session.plane.setAudioFallback(transport: transport, side: .subscriber, enabled: true)
        }
        try await session.run(until: Self.runEnd, downlinkLoss: { index, time in index == 0 && time >= Self.lossStart && time < Self.lossEnd ? 0.3 : 0 })
        let (subscribers, transports) = (session.subscribers, session.transports)
        let lossyEvents = session.transitions(of: transports[0], side: .subscriber).map { ($0.time, $0.transition) }
        #expect(lossyEvents.map(\.1) == [.warning, .videoDisabled, .videoEnabled], "\(lossyEvents)")
        #expect(session.transitions(of: transports[1], side: .subscriber).isEmpty, "the clean subscriber hears nothing")
        let lossy = subscribers[0]
        let clean = subscribers[1]

        guard lossyEvents.count == 3 else { return }
        let (warnedAt, disabledAt, enabledAt) = (lossyEvents[0].0, lossyEvents[1].0, lossyEvents[2].0)
        print(
            "audio-fallback end-to-end: warning \(warnedAt - Self.lossStart) s, disabled \(disabledAt - Self.lossStart) s after the loss began; "
                + "enabled \(enabledAt - Self.lossEnd) s after it ended")
        #expect(warnedAt - Self.lossStart <= 2, "warning \(warnedAt - Self.lossStart) s after the loss began")
        #expect(disabledAt - Self.lossStart <= 4, "disabled \(disabledAt - Self.lossStart) s after the loss began")
        #expect(enabledAt > Self.lossEnd && enabledAt - Self.lossEnd <= 6, "enabled \(enabledAt - Self.lossEnd) s after the loss ended")

        let lossyReception = lossy.reception
        // Video stops for the lossy subscriber (allow the packets in flight), audio goes on.
        let videoWhileOff = lossyReception.videoPayloadTimes.filter { $0 > disabledAt + 0.1 && $0 < enabledAt }
        #expect(videoWhileOff.isEmpty, "\(videoWhileOff.count) video packets while video was off")
        let audioWhileOff = lossyReception.audioTimes.filter { $0 > disabledAt && $0 < Self.lossEnd }.count
        let expectedAudio = (Self.lossEnd - disabledAt) * 50 * 0.7
        #expect(Double(audioWhileOff) > expectedAudio * 0.8, "\(audioWhileOff) audio packets while video was off, about \(Int(expectedAudio)) expected")
        // The path was probed while video was off.
        #expect(lossyReception.paddingTimes.contains { $0 > disabledAt && $0 < enabledAt })
        // Video came back within half a second of the enable, starting on a key frame, with no
        // sequence gap after the probe padding.
        let resumed = lossyReception.video.filter { $0.time > enabledAt && $0.isKeyFrame != nil }
        #expect(resumed.first?.isKeyFrame == true)
        if let first = resumed.first {
            #expect(first.time - enabledAt <= 0.5, "first video \(first.time - enabledAt) s after the enable")
            if let index = lossyReception.video.firstIndex(where: { $0.time == first.time && $0.sequenceNumber == first.sequenceNumber }), index > 0 {
                #expect(first.sequenceNumber == lossyReception.video[index - 1].sequenceNumber &+ 1)
            }
        }
        // The clean subscriber's video never stopped: no gap over 300 ms in the whole run after start.
        let cleanVideo = clean.reception.videoPayloadTimes
        let gaps = zip(cleanVideo, cleanVideo.dropFirst()).map { $1 - $0 }
        #expect((gaps.max() ?? 1) < 0.3, "longest video gap of the clean subscriber: \(gaps.max() ?? -1) s")
        #expect(clean.reception.paddingTimes.isEmpty)
    }

    @Test func aLossyPublisherUplinkTurnsItsVideoOffForEverySubscriberAndBack() async throws {
        let session = try await FallbackSession(portBase: 42_360)
        defer { session.close() }
        try await session.plane.setAudioFallback(transport: session.publisherTransport, side: .publisher, enabled: true)
        for transport in session.transports {
            try await session.plane.setAudioFallback(transport: transport, side: .subscriber, enabled: true)
        }
        let (lossStart, lossEnd) = (2.0, 10.0)
        try await session.run(until: 17, uplinkLoss: { (lossStart..<lossEnd).contains($0) ? 0.3 : 0 })
        let publisherEvents = session.transitions(of: session.publisherTransport, side: .publisher)
        #expect(publisherEvents.map(\.transition) == [.warning, .videoDisabled, .videoEnabled], "\(publisherEvents)")
        for transport in session.transports {
            #expect(session.transitions(of: transport, side: .subscriber).isEmpty, "subscribers' own paths are clean")
        }
        guard publisherEvents.count == 3 else { return }
        let (disabledAt, enabledAt) = (publisherEvents[1].time, publisherEvents[2].time)
        #expect(disabledAt - lossStart <= 4, "disabled \(disabledAt - lossStart) s after the loss began")
        #expect(enabledAt > lossEnd && enabledAt - lossEnd <= 6, "enabled \(enabledAt - lossEnd) s after the loss ended")
        for subscriber in session.subscribers {
            let reception = subscriber.reception
            #expect(reception.videoPayloadTimes.filter { $0 > disabledAt + 0.1 && $0 < enabledAt }.isEmpty)
            #expect(reception.audioTimes.contains { $0 > disabledAt && $0 < enabledAt }, "audio goes on")
            #expect(reception.paddingTimes.isEmpty, "nothing to probe: the subscribers' paths are not the problem")
            let resumed = reception.video.first { $0.time > enabledAt }
            #expect(resumed?.isKeyFrame == true, "video restarts on a key frame")
            #expect((resumed?.time ?? 99) - enabledAt <= 0.5)
        }
    }

    /// Publishes 50 audio and 100 video packets a second (a key frame on every PLI and every 2 s) and
    /// runs the subscribers until `runEnd`.
    static func drive(
        publisher: TestPeer, subscribers: [ReportingSubscriber], ssrcs: [(audio: UInt32, video: UInt32)], until end: Double,
        elapsed: () -> Double, downlinkLoss: (Int, Double) -> Double = { _, _ in 0 }, uplinkLoss: (Double) -> Double = { _ in 0 }
    ) throws {
        var generator = SystemRandomNumberGenerator()
        var nextAudio = 0.0
        var nextVideo = 0.0
        var audioIndex = 0
        var videoIndex = 0
        var keyFrameWanted = true
        var lastKeyFrame = 0.0
        while case let time = elapsed(), time < end {
            let sends = Double.random(in: 0..<1, using: &generator) >= uplinkLoss(time)
            let now = MediaClock.monotonicNow()
            while let packet = publisher.receiveIfQueued() {
                if case .rtcp(let bytes) = packet, pictureLossIndications(in: [bytes]) > 0 { keyFrameWanted = true }
            }
            if time >= nextAudio {
                if sends { try publisher.sendRTP(
                    payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: audioIndex), timestamp: UInt32(960 * audioIndex),
                    ssrc: audioSSRC, payload: [0x78] + [UInt8](repeating: 0x55, count: 80)) }
                audioIndex += 1
                nextAudio += 0.02
            }
            if time >= nextVideo {
                let keyFrame = keyFrameWanted || time - lastKeyFrame >= 2
                if keyFrame {
                    keyFrameWanted = false
                    lastKeyFrame = time
                }
                if sends { try publisher.sendRTP(
                    payloadType: 96, sequenceNumber: UInt16(truncatingIfNeeded: videoIndex), timestamp: UInt32(900 * videoIndex),
                    ssrc: videoSSRC, payload: VP8TestPayload.make(index: videoIndex, keyFrame: keyFrame, size: 700)) }
                videoIndex += 1
                nextVideo += 0.01
            }
            for (index, subscriber) in subscribers.enumerated() {
                subscriber.drain(at: time, lossProbability: downlinkLoss(index, time), audioSSRC: ssrcs[index].audio, videoSSRC: ssrcs[index].video, now: now)
                try subscriber.reportIfDue(at: time, now: now)
            }
            usleep(1000)
        }
    }
}

/// Hands a closure over non-Sendable test objects to another thread that alone uses them until done.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Media events with the time they arrived, shared with the task that collects them.
final class EventLog: Sendable {
    let entries = Mutex<[(time: Double, event: MediaEvent)]>([])
}
