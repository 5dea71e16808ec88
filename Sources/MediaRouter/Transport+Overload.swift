import MediaControl

/// What overload shedding does to one subscriber: its video off, its audio on.
extension Transport {
    /// Whether shedding may turn this transport's video off: a subscriber (no relay leg, no
    /// recording) receiving video now, so turning it off frees the worker of something. A shed one
    /// receives none.
    var isSheddingCandidate: Bool {
        !isRelayLeg && recording == nil && !isVideoShed && consumersBySSRC.values.contains { $0.kind == .video && $0.isForwarding && !$0.producer.isSuspended }
    }

    /// Packets per second this subscriber's video costs the worker when on.
    var videoPacketRate: Double {
        consumersBySSRC.values.reduce(0) { $0 + ($1.kind == .video ? $1.producer.packetRateOfBusiestEncoding : 0) }
    }

    /// Turns the subscriber's video off or back on (from a key frame), and tells signaling why.
    func setVideoShed(_ shed: Bool, now: UInt64) {
        guard shed != isVideoShed else { return }
        isVideoShed = shed
        for consumer in consumersBySSRC.values where consumer.kind == .video {
            if shed { consumer.pause(.overload, now: now) } else { consumer.resume(.overload, now: now) }
        }
        worker.events.yield(.overloadShedding(id, videoOff: shed))
    }
}
