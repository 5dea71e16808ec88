extension Transport {
    /// A recording transport's writer lost video and waits for a key frame: its video consumers not
    /// already waiting for one start again from the next, asked of the publisher under the usual
    /// throttle. Frames until then are of no use to the writer.
    func tickRecording(now: UInt64) {
        guard let recording, recording.takeKeyFrameRequest() else { return }
        for consumer in consumersBySSRC.values where consumer.kind == .video && consumer.isForwarding && !consumer.waitingForKeyFrame {
            consumer.restartFromKeyFrame(now: now)
        }
    }
}
