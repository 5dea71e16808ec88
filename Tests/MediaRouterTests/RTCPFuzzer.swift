// The invariants of the `rtcp` libFuzzer target (Fuzz/RTCPFuzzTarget.swift): the RTCP the media
// plane acts on, through the router's handler rather than the parser alone: NACK into the
// retransmission buffer, PLI and FIR into the key-frame throttle, report blocks into the consumer's
// statistics and the link-quality estimate, REMB into the downlink, sender reports into the
// producer's clock. `make test` checks them on every seed in Fuzz/seeds/rtcp (FuzzSeedTests), so they
// cannot drift from the code between campaigns; Fuzz/run.sh compiles this file INTO the MediaRouter
// module (with -D FUZZ_TARGET, beside RTPWire, MediaControl, SRTP, DTLS, ICE, Quality and
// CSystemShims, built first, and the OpenSSL libsrtp2), so internal API is in reach either way.
//
// One media plane lives for the whole run: a router with a publisher's transport sending VP8 and
// Opus, and a subscriber's transport consuming both. Each input is handed, on the worker's thread, to
// `Router.handleRTCP` as if the subscriber had sent it, then as if the publisher had; every 16th
// input a few more RTP packets arrive and the router's timers run. Any trap (an arithmetic overflow,
// a read out of bounds, a precondition) is a crash; so is a snapshot whose figures contradict each
// other. The state carries over between inputs, as it does in a call. The rig waits for the media
// plane by blocking its thread, so `check` must not be called from Swift concurrency's pool.

import Dispatch
import MediaControl
import RTPWire
import SRTP

#if !FUZZ_TARGET
    @testable import MediaRouter
#endif

private final class Rig: @unchecked Sendable {
    static let videoSSRC: UInt32 = 0x1111_0001
    static let audioSSRC: UInt32 = 0x1111_0002
    static let videoConsumerSSRC: UInt32 = 0x2222_0001
    static let audioConsumerSSRC: UInt32 = 0x2222_0002

    let plane: MediaPlane
    let worker: Worker
    let router: Router
    let publisher: Transport
    let subscriber: Transport
    /// The worker's own clock: the worker runs its timers between inputs too, and a time ahead of
    /// the one they see would look like a packet from the future.
    var now = MediaClock.monotonicNow()
    var sequenceNumber: UInt16 = 65_000
    var inputs = 0
    let packetBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1_500, alignment: 16)

    init() {
        let plane = try! MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 47_900...47_999))
        let result = Self.wait { () async throws -> (RouterID, TransportID, TransportID) in
            let router = try await plane.createRouter()
            let keys = SRTPParameters(
                profile: SRTPProfile.aeadAES128GCM.rawValue,
                keyParameter: SRTPKeyMaterial.random(profile: .aeadAES128GCM).sdesKeyParameter)
            let publisher = try await plane.createPlainTransport(router: router, options: PlainTransportOptions(clientSRTP: keys))
            let subscriber = try await plane.createPlainTransport(
                router: router, options: PlainTransportOptions(remoteAddress: TransportAddress(host: "127.0.0.1", port: 9), clientSRTP: keys))
            for (codec, ssrc) in [(CodecParameters(name: .vp8, payloadType: 96), Self.videoSSRC), (CodecParameters(name: .opus, payloadType: 111), Self.audioSSRC)] {
                let producer = try await plane.produce(transport: publisher.transportID, options: ProducerOptions(codec: codec, ssrc: ssrc))
                _ = try await plane.consume(transport: subscriber.transportID, producer: producer, pauseReasons: [])
            }
            return (router, publisher.transportID, subscriber.transportID)
        }
        let (routerID, publisherID, subscriberID) = try! result.get()
        self.plane = plane
        worker = plane.workers[0]
        router = worker.performAndWait { [worker] in worker.routers[routerID]! }
        publisher = worker.performAndWait { [router] in router.transports[publisherID]! }
        subscriber = worker.performAndWait { [router] in router.transports[subscriberID]! }
        let consumers = worker.performAndWait { [router] in router.consumers.values.map { ($0.kind, $0.ssrc) } }
        consumerSSRCs = [
            Self.videoConsumerSSRC: consumers.first { $0.0 == .video }!.1, Self.audioConsumerSSRC: consumers.first { $0.0 == .audio }!.1,
        ]
    }

    /// The real SSRCs of the consumers, by the fixed ones inputs use.
    let consumerSSRCs: [UInt32: UInt32]

    /// Consumers draw random SSRCs; inputs name them by fixed ones the fuzzer can keep, which every
    /// 32-bit word of the input that holds one is turned into here (RTCP is word-aligned).
    func substituteConsumerSSRCs(in bytes: UnsafeMutableRawBufferPointer) {
        for offset in stride(from: 0, to: bytes.count - 3, by: 4) {
            let word = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
            guard let real = consumerSSRCs[word] else { continue }
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: real >> (24 - 8 * index)) }
        }
    }

    /// Runs `body` to its end from a thread that is not the worker's.
    static func wait<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) -> Result<Value, any Error> {
        nonisolated(unsafe) var result: Result<Value, any Error>?
        let done = DispatchSemaphore(value: 0)
        Task {
            do { result = .success(try await body()) } catch { result = .failure(error) }
            done.signal()
        }
        done.wait()
        return result!
    }

    /// A few RTP packets from the publisher, a key frame among them now and then, so that NACKs
    /// find packets to resend and the consumers forward.
    func publish() {
        for ssrc in [Self.videoSSRC, Self.audioSSRC] {
            sequenceNumber &+= 1
            let keyFrame = sequenceNumber % 64 == 0
            let payload: [UInt8] = ssrc == Self.videoSSRC ? [0x10, keyFrame ? 0x00 : 0x01] + Array(repeating: 0xAB, count: 100) : [0x78] + Array(repeating: 0x11, count: 60)
            let packet = payload.withUnsafeBytes { bytes in
                try! RTPPacket(
                    writingInto: packetBuffer, payloadType: ssrc == Self.videoSSRC ? 96 : 111, sequenceNumber: sequenceNumber,
                    timestamp: UInt32(truncatingIfNeeded: now / 11_111), ssrc: ssrc, payload: bytes)
            }
            publisher.producersBySSRC[ssrc]?.receive(packet, now: now)
        }
    }
}

private let rig = Rig()

enum RTCPFuzzer {
    /// Checks one input; returns only when every invariant holds.
    static func check(_ input: UnsafeRawBufferPointer) {
        let size = input.count
        let exact = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { exact.deallocate() }
        if size > 0, let base = exact.baseAddress { base.copyMemory(from: input.baseAddress!, byteCount: size) }
        rig.substituteConsumerSSRCs(in: exact)
        let bytes = UnsafeRawBufferPointer(exact)
        rig.inputs += 1
        let publishesNow = rig.inputs % 16 == 1
        let statistics = rig.worker.performAndWait { () -> RouterStatistics in
            rig.now = max(rig.now, MediaClock.monotonicNow())
            if publishesNow { rig.publish() }
            rig.router.handleRTCP(bytes, from: rig.subscriber, now: rig.now)
            rig.router.handleRTCP(bytes, from: rig.publisher, now: rig.now)
            if publishesNow { rig.router.tick(now: rig.now) }
            return rig.router.statistics()
        }
        // A subscriber's reports steer the audio-fallback policy: whatever they say, the measured link
        // must stay a measurement.
        for transport in statistics.transports {
            for (direction, link) in [("downlink", transport.downlink), ("uplink", transport.uplink)] {
                let name = "\(direction) of \(transport.transportID)"
                ensure((0...100).contains(link.score), "\(name): score \(link.score)")
                ensure((0...1).contains(link.lossFraction), "\(name): loss fraction \(link.lossFraction)")
                ensure(link.jitterSeconds.isFinite && link.jitterSeconds >= 0, "\(name): jitter \(link.jitterSeconds)")
                ensure(link.roundTripTimeSeconds.map { $0.isFinite && $0 >= 0 } ?? true, "\(name): round trip \(String(describing: link.roundTripTimeSeconds))")
                ensure(link.availableBitrate.map { $0.isFinite && $0 >= 0 } ?? true, "\(name): available \(String(describing: link.availableBitrate))")
                ensure(link.deliveredBitrate.map { $0.isFinite && $0 >= 0 } ?? true, "\(name): delivered \(String(describing: link.deliveredBitrate))")
            }
        }
        for consumer in statistics.consumers {
            ensure(consumer.jitterSeconds.isFinite && consumer.jitterSeconds >= 0, "consumer jitter \(consumer.jitterSeconds)")
            ensure(consumer.roundTripTimeSeconds.map { $0.isFinite && $0 >= 0 } ?? true, "consumer round trip \(String(describing: consumer.roundTripTimeSeconds))")
        }
    }
}

@inline(__always)
private func ensure(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("RTCP fuzz invariant: \(message())") }
}
