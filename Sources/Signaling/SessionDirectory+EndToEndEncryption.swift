import SignalingProtocol

/// What an end-to-end encrypted session (docs/e2ee.md) refuses: whatever would carry media its
/// client does not encrypt, or need the router to read media it cannot.
extension SessionDirectory {
    enum UnencryptedParticipant {
        case plainPublisher
        case plainSubscriber
        case whipPublisher
        case whepPlayer
    }

    func isEndToEndEncrypted(_ sessionId: String) -> Bool {
        sessions[sessionId]?.isEndToEndEncrypted == true
    }

    /// Throws when `sessionId` is end-to-end encrypted, naming why `participant` cannot take part.
    func refuseInEndToEndEncryptedSession(_ participant: UnencryptedParticipant, in sessionId: String) throws(SignalingError) {
        guard isEndToEndEncrypted(sessionId) else { return }
        let advice = "take part over WebRTC with encoded transforms (switchyard.js with the session's secret)"
        switch participant {
        case .plainPublisher, .plainSubscriber:
            let sending = participant == .plainPublisher ? "would send media its client does not encrypt" : "carries media its client cannot decrypt"
            throw .invalidParams("params.transport", "session \(sessionId) is end-to-end encrypted: a plain transport \(sending); \(advice)")
        case .whipPublisher:
            throw SignalingError(.forbidden, "session \(sessionId) is end-to-end encrypted: a WHIP publisher sends its media unencrypted; \(advice)")
        case .whepPlayer:
            throw SignalingError(.forbidden, "session \(sessionId) is end-to-end encrypted: a WHEP player cannot decrypt its media; \(advice)")
        }
    }
}
