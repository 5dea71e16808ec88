import Glibc
import MediaControl
import MediaTestSupport
import Synchronization
import Testing

@testable import MediaRouter

/// Audio publishers with RFC 6464 levels in front of one subscriber: the router names the dominant
/// speaker, reports levels, mutes at once, and forwards only the loudest when asked, switching only
/// at silences. Packets go out every 20 ms, as audio does; nothing here asserts how long anything
/// took, only what happened.
@Suite(.serialized) struct SpeakerRoutingTests {
    static let levelExtension: UInt8 = 1
    static let speech: UInt8 = 30
    static let silent: UInt8 = 127

    /// Speech in round `round`: 100 ms of silence, then 300 ms of talking, as pauses and words go. (The
    /// router tells speech by its rise over the stream's own floor, so a stream that starts at one
    /// level reads as speech only from its first pause.)
    static func speaking(_ round: Int) -> UInt8 { round % 20 < 5 ? silent : speech }

    /// Unchecked: each test drives its peers from one thread at a time.
    final class Room: @unchecked Sendable {
        let plane: MediaPlane
        let router: RouterID
        let talkers: [TestPeer]
        let producers: [ProducerID]
        let subscriber: TestPeer
        /// The SSRC the subscriber gets each talker's audio with.
        let consumerSSRCs: [UInt32]
        let eventLog = EventLog()
        /// The level each talker's packet `index` carried.
        let sent = Mutex<[[UInt8]]>([])
        /// Everything the subscriber got, in arrival order.
        let delivered = Mutex<[(talker: Int, index: Int, level: UInt8)]>([])
        /// How much of `delivered` `received(for:)` has returned.
        private let reportedCount = Mutex(0)
        let collector: Task<Void, Never>

        init(talkers count: Int, portBase: UInt16) async throws {
            plane = try MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: portBase...(portBase + 49)))
            router = try await plane.createRouter()
            var talkers: [TestPeer] = []
            var producers: [ProducerID] = []
            for index in 0..<count {
                let peer = try TestPeer()
                let transport = try await plane.createPlainTransport(router: router, options: PlainTransportOptions(clientSRTP: peer.srtpParameters))
                try peer.connect(to: transport)
                var options = ProducerOptions(codec: CodecParameters(name: .opus, payloadType: 111), ssrc: Room.ssrc(index))
                options.audioLevelID = SpeakerRoutingTests.levelExtension
                producers.append(try await plane.produce(transport: transport.transportID, options: options))
                talkers.append(peer)
            }
            subscriber = try TestPeer()
            let transport = try await plane.createPlainTransport(
                router: router, options: PlainTransportOptions(remoteAddress: subscriber.address, clientSRTP: subscriber.srtpParameters))
            try subscriber.connect(to: transport)
            var consumerSSRCs: [UInt32] = []
            for producer in producers {
                consumerSSRCs.append(
                    try await plane.consume(transport: transport.transportID, producer: producer, pauseReasons: [], preference: .unconstrained).ssrc)
            }
            self.consumerSSRCs = consumerSSRCs
            self.talkers = talkers
            self.producers = producers
            sent.withLock { $0 = Array(repeating: [], count: count) }
            let log = eventLog
            collector = Task { [plane] in
                for await event in plane.events {
                    switch event {
                    case .dominantSpeakerChanged, .audioLevels: log.events.withLock { $0.append(event) }
                    default: continue
                    }
                }
            }
        }

        final class EventLog: Sendable {
            let events = Mutex<[MediaEvent]>([])
        }

        static func ssrc(_ talker: Int) -> UInt32 { 0xA0D0 + UInt32(talker) }

        /// One 20 ms round: each talker with a level sends one packet carrying it (in the extension, and
        /// in the payload with the packet's index, so the subscriber can tell what it got).
        func round(_ levels: [UInt8?]) throws {
            for (talker, level) in levels.enumerated() {
                guard let level else { continue }
                let index = sent.withLock { sent in
                    sent[talker].append(level)
                    return sent[talker].count - 1
                }
                try talkers[talker].sendRTP(
                    payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: index), timestamp: UInt32(index) * 960, ssrc: Self.ssrc(talker),
                    payload: [level, UInt8(index >> 8), UInt8(index & 0xFF)] + Array(repeating: 0, count: 40),
                    audioLevel: (SpeakerRoutingTests.levelExtension, level))
            }
            usleep(20_000)
            drainSubscriber()
        }

        /// Rounds until `done` holds of the events (at most `limit` rounds); returns whether it did.
        func talk(_ levels: @escaping (Int) -> [UInt8?], until done: @escaping ([MediaEvent]) -> Bool, limit: Int = 250) async throws -> Bool {
            try await onOwnThread {
                for round in 0..<limit {
                    if done(self.eventLog.events.withLock { $0 }) { return true }
                    try self.round(levels(round))
                }
                return done(self.eventLog.events.withLock { $0 })
            }
        }

        /// What the subscriber has received since the last call, as (talker, index, level), in arrival
        /// order, waiting `milliseconds` for more.
        func received(for milliseconds: Int = 100) async throws -> [(talker: Int, index: Int, level: UInt8)] {
            let packets = try await onOwnThread { self.subscriber.receivePackets(for: milliseconds).compactMap(self.parse) }
            return delivered.withLock { delivered in
                delivered += packets
                defer { reportedCount.withLock { $0 = delivered.count } }
                return Array(delivered[reportedCount.withLock { $0 }...])
            }
        }

        /// Reads what the subscriber has queued, so that its socket never holds more than a round's.
        private func drainSubscriber() {
            while let packet = subscriber.receiveIfQueued() {
                guard let parsed = parse(packet) else { continue }
                delivered.withLock { $0.append(parsed) }
            }
        }

        private func parse(_ packet: TestPeer.Received) -> (talker: Int, index: Int, level: UInt8)? {
            guard case .rtp(_, _, let ssrc, _, let payload) = packet, payload.count >= 3, let talker = consumerSSRCs.firstIndex(of: ssrc) else {
                return nil
            }
            return (talker, Int(payload[1]) << 8 | Int(payload[2]), payload[0])
        }

        func close() {
            collector.cancel()
            plane.shutdown()
        }
    }

    @Test func theDominantSpeakerIsNamedWithLevelsAndLosesTheFloorWhenMuted() async throws {
        let room = try await Room(talkers: 3, portBase: 46_600)
        defer { room.close() }
        let first = room.producers[0]
        let named = try await room.talk({ [Self.speaking($0), Self.silent, 70] }) { events in
            events.contains { $0 == .dominantSpeakerChanged(room.router, first) }
        }
        #expect(named, "talker 0 never became the dominant speaker")
        let reported = try await room.talk({ [Self.speaking($0), Self.silent, 70] }) { events in
            events.contains { if case .audioLevels(_, let levels) = $0 { levels.first?.producerID == first && levels.first?.speaking == true } else { false } }
        }
        #expect(reported, "no level report put the talker first")
        let statistics = try await room.plane.statistics(router: room.router)
        #expect(statistics.dominantSpeaker == first)
        let talker = try #require(statistics.producers.first { $0.producerID == first })
        #expect((talker.audioLevel ?? 0) > 0, "the level decays once packets stop, but not to nothing this soon")
        #expect(statistics.producers.first { $0.producerID == room.producers[1] }?.speaking == false)

        // Level reports may follow the change, so look for it among everything heard since the mute;
        // counted before the mute, since the worker's next speaker tick may report the change
        // before this test reads the log.
        let heardBefore = room.eventLog.events.withLock { $0.count }
        try await room.plane.setProducerMuted(first, muted: true)
        let lost = try await room.talk({ [Self.speaking($0), Self.silent, 70] }) { events in
            events.dropFirst(heardBefore).contains(.dominantSpeakerChanged(room.router, nil))
        }
        #expect(lost, "a muted speaker kept the floor")
        #expect(!room.eventLog.events.withLock { $0 }.contains { $0 == .dominantSpeakerChanged(room.router, room.producers[2]) }, "noise took the floor")
    }

    @Test func aMutedProducerForwardsNothingFromTheMomentItIsMuted() async throws {
        let room = try await Room(talkers: 2, portBase: 46_650)
        defer { room.close() }
        try await onOwnThread { for _ in 0..<5 { try room.round([Self.speech, Self.speech]) } }
        #expect(try await room.received(for: 200).filter { $0.talker == 0 }.count == 5)

        try await room.plane.setProducerMuted(room.producers[0], muted: true)
        try await onOwnThread { for _ in 0..<10 { try room.round([Self.speech, Self.speech]) } }
        try await waitUntil("the router read the muted packets") {
            try await room.plane.statistics(router: room.router).producers.first { $0.producerID == room.producers[0] }?.packetsHeldBack == 10
        }
        let whileMuted = try await room.received(for: 200)
        #expect(whileMuted.filter { $0.talker == 0 }.isEmpty, "a muted producer's packet was forwarded")
        #expect(whileMuted.filter { $0.talker == 1 }.count == 10, "the other talker was held back too")

        try await room.plane.setProducerMuted(room.producers[0], muted: false)
        try await onOwnThread { for _ in 0..<5 { try room.round([Self.speech, nil]) } }
        #expect(try await room.received(for: 200).map(\.index) == Array(15..<20))
        await #expect(throws: MediaControlError.unknownProducer(ProducerID(rawValue: 999_999))) {
            try await room.plane.setProducerMuted(ProducerID(rawValue: 999_999), muted: true)
        }
        await #expect(throws: MediaControlError.self) { try await room.plane.setForwardLoudest(router: room.router, count: 0) }
    }

    @Test func forwardingOnlyTheLoudestHoldsTheQuieterBackAndSwitchesOnlyAtSilences() async throws {
        let room = try await Room(talkers: 2, portBase: 46_700)
        defer { room.close() }
        // Both come through while every stream is forwarded; once only the loudest is, both are held
        // at their next silent packet (no one has spoken yet). Whether a packet beats the router's
        // first evaluation is the scheduler's choice, so the test waits on each step rather than on time.
        try await waitUntil("the subscriber got both talkers") {
            try await onOwnThread { try room.round([Self.silent, Self.silent]) }
            return Set(room.delivered.withLock { $0.map(\.talker) }).count == 2
        }
        try await room.plane.setForwardLoudest(router: room.router, count: 1)
        try await waitUntil("both silent talkers are held back") {
            try await onOwnThread { try room.round([Self.silent, Self.silent]) }
            return try await room.plane.statistics(router: room.router).producers.allSatisfy(\.heldBackAsQuieter)
        }

        // Talker 0 talks, talker 1 is silent: talker 1 is held back.
        _ = try await room.talk({ [Self.speaking($0), Self.silent] }, until: { _ in false }, limit: 100)
        let heldBack = try await room.plane.statistics(router: room.router).producers.first { $0.producerID == room.producers[1] }
        #expect(heldBack?.heldBackAsQuieter == true)
        _ = try await room.received()
        try await onOwnThread { for round in 0..<25 { try room.round([Self.speaking(round), Self.silent]) } }
        let quiet = try await room.received(for: 200)
        #expect(quiet.filter { $0.talker == 1 }.isEmpty, "the quieter talker was forwarded: \(quiet.filter { $0.talker == 1 })")
        #expect(quiet.filter { $0.talker == 0 && $0.level == Self.speech }.count >= 15)

        // They swap: talker 1 talks, talker 0 falls silent; talker 1 comes through, talker 0 is held.
        let swapped = try await room.talk({ [Self.silent, Self.speaking($0)] }) { events in
            events.contains { $0 == .dominantSpeakerChanged(room.router, room.producers[1]) }
        }
        #expect(swapped)
        _ = try await room.talk({ [Self.silent, Self.speaking($0)] }, until: { _ in false }, limit: 100)
        let statistics = try await room.plane.statistics(router: room.router)
        #expect(statistics.producers.first { $0.producerID == room.producers[0] }?.heldBackAsQuieter == true)
        #expect(statistics.producers.first { $0.producerID == room.producers[1] }?.heldBackAsQuieter == false)

        // Every run of a talker's packets began and ended where no sound was cut: a hold started at
        // a silent packet, and forwarding resumed at a silent packet or at the first packet of speech.
        _ = try await room.received(for: 300)
        let sent = room.sent.withLock { $0 }
        let received = room.delivered.withLock { $0 }
        var holds = 0
        for talker in 0..<2 {
            let indices = received.filter { $0.talker == talker }.map(\.index)
            for (before, after) in zip(indices, indices.dropFirst()) where after > before + 1 {
                holds += 1
                #expect(sent[talker][before + 1] == Self.silent, "talker \(talker) was held back mid-speech at packet \(before + 1), resumed at \(after); sent \(sent[talker].map { $0 == 127 ? "." : "s" }.joined()), got \(indices)")
                let resumedAtBoundary = sent[talker][after] == Self.silent || sent[talker][after - 1] == Self.silent
                #expect(resumedAtBoundary, "talker \(talker) came back mid-speech at packet \(after)")
            }
        }
        #expect(holds >= 2, "each talker should have been held back and let through again at least once")
    }
}
