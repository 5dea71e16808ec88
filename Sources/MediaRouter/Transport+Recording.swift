extension Transport {
    /// A recording transport's writer lost video and waits for a key frame: the publishers of its
    /// video consumers are asked for one (under the producer's usual throttle). The consumers keep
    /// forwarding meanwhile, so a key frame already on its way is not held back.
    func tickRecording(now: UInt64) {
        guard let recording, recording.takeKeyFrameRequest() else { return }
        for consumer in consumersBySSRC.values where consumer.kind == .video && consumer.isForwarding {
            consumer.producer.requestKeyFrame(encoding: consumer.targetEncoding, now: now)
        }
    }
}
