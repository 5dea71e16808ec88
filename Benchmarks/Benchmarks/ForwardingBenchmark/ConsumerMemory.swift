import AllocationCounter
import MediaControl
import MediaRouter
import SRTP

/// What one consumer costs in resident memory: RSS growth while a fresh router gains `count`
/// subscriber transports with one video consumer each.
enum ConsumerMemory {
    static func measure(count: Int, portRange: ClosedRange<UInt16>) async throws -> String {
        precondition(portRange.count > count + 1, "the port range must hold the publisher and every subscriber")
        let plane = try MediaPlane(
            configuration: MediaRouterConfiguration(workerCount: 1, listenAddress: "127.0.0.1", portRange: portRange))
        defer { plane.shutdown() }
        let router = try await plane.createRouter()
        let keys = SRTPKeyMaterial.random(profile: .aeadAES128GCM)
        let srtp = SRTPParameters(profile: keys.profile.rawValue, keyParameter: keys.sdesKeyParameter)
        let publisher = try await plane.createPlainTransport(router: router, options: PlainTransportOptions(clientSRTP: srtp))
        let producer = try await plane.produce(
            transport: publisher.transportID, options: ProducerOptions(codec: Forwarding.vp8, ssrc: Forwarding.videoSSRC))

        // Subscribers have an address (nothing is ever sent: the producer never receives a packet).
        let subscriberAddress = TransportAddress(host: "127.0.0.1", port: 9)
        func addSubscriber() async throws {
            let transport = try await plane.createPlainTransport(
                router: router, options: PlainTransportOptions(remoteAddress: subscriberAddress, clientSRTP: srtp))
            _ = try await plane.consume(transport: transport.transportID, producer: producer, pauseReasons: [])
        }
        // One subscriber first, so one-time set-up is not charged to the thousand.
        try await addSubscriber()
        sleepNanoseconds(100_000_000)
        let before = residentBytes()
        for _ in 0..<count { try await addSubscriber() }
        sleepNanoseconds(100_000_000)
        let after = residentBytes()
        // For scale: what the two SRTP sessions of a transport cost on their own (with the linked libsrtp2),
        // measured while the heap is at its peak so nothing freed is reused.
        var sessions: [SRTPSession] = []
        sessions.reserveCapacity(2 * count)
        for _ in 0..<count {
            sessions.append(try SRTPSession(keyMaterial: keys, direction: .inbound))
            sessions.append(try SRTPSession(keyMaterial: SRTPKeyMaterial.random(profile: keys.profile), direction: .outbound))
        }
        let afterSessions = residentBytes()
        sessions.removeAll()
        try await plane.closeRouter(router)
        sleepNanoseconds(300_000_000)
        // glibc keeps freed memory in the heap until trimmed, so only a trimmed figure says what closing gave back.
        _ = allocation_counter_trim()
        let afterTrim = residentBytes()

        let perConsumer = Double(after - before) / Double(count) / 1024
        func mebibytes(_ bytes: Int) -> String { formatted(Double(bytes) / 1_048_576, decimals: 1) }
        return "consumer_memory_kib_per_consumer=\(formatted(perConsumer, decimals: 1)) consumers=\(count)"
            + " (each with its own transport: UDP socket and its epoll registration, inbound and outbound SRTP session; target <= 64)"
            + " srtp_sessions_kib_per_transport=\(formatted(Double(afterSessions - after) / Double(count) / 1024, decimals: 1))"
            + " rss_mib: before=\(mebibytes(before)) after=\(mebibytes(after))"
            + " after_close_and_malloc_trim=\(mebibytes(afterTrim))"
    }
}
