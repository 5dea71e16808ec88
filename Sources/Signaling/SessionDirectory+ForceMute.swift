import SignalingProtocol

/// Force mute, as the reference platform has it (`forceMuteStream`, `forceMuteAll`,
/// `disableForceMute`): a moderator or the app's backend turns a stream's audio off as its publisher
/// would with `publishAudio: false`, and the router stops forwarding it before the request is
/// answered. The publisher hears `muteForced` and may turn its audio on again.
extension SessionDirectory {
    /// Most ids `forceMuteAll` may spare.
    public static let maximumExcludedStreamIds = 1000

    /// Mutes one stream's audio. A stream already muted, or without audio, is left as it is, silently.
    public func forceMuteStream(sessionId: String, by requester: Requester, streamId: String) async throws(SignalingError) {
        try authorizeModeration(requester, in: sessionId, action: "force mute")
        guard sessions[sessionId]?.streams[streamId] != nil else {
            throw SignalingError(.notFound, "no stream \(streamId) in session \(sessionId)")
        }
        await forceMute(streamId, in: sessionId)
    }

    /// Mutes every stream but the excluded ones, and turns force mute on: until `disableForceMute`,
    /// every stream published that is not excluded starts muted. Every connection hears
    /// `forceMuteChanged` when the state changes, before the streams are muted.
    public func forceMuteAll(sessionId: String, by requester: Requester, excludedStreamIds: [String]) async throws(SignalingError) {
        try authorizeModeration(requester, in: sessionId, action: "force mute")
        let excluded = try Self.validate(excludedStreamIds: excludedStreamIds, at: "\(requester.parametersPath).excludedStreamIds")
        let state = ForceMuteState(active: true, excludedStreamIds: excluded)
        setForceMute(state, in: sessionId)
        let spared = Set(excluded)
        let targets = sessions[sessionId]?.streams.values.filter { !spared.contains($0.info.streamId) }
            .sorted { ($0.info.creationTime, $0.info.streamId) < ($1.info.creationTime, $1.info.streamId) } ?? []
        for stream in targets {
            await forceMute(stream.info.streamId, in: sessionId)
        }
    }

    /// Turns force mute off: streams published from now on keep their audio. Nobody is unmuted.
    public func disableForceMute(sessionId: String, by requester: Requester) throws(SignalingError) {
        try authorizeModeration(requester, in: sessionId, action: "disable force mute")
        setForceMute(.inactive, in: sessionId)
    }

    private func setForceMute(_ state: ForceMuteState, in sessionId: String) {
        guard let session = sessions[sessionId], session.forceMute != state else { return }
        sessions[sessionId]?.forceMute = state
        session.broadcast(.forceMuteChanged(state))
        logger.info(
            "force mute changed",
            metadata: ["session": "\(sessionId)", "active": "\(state.active)", "excluded": "\(state.excludedStreamIds?.count ?? 0)"])
    }

    /// Turns a stream's audio off as the publisher's `publishAudio: false` would, with reason
    /// `forceMuted`, waits for the router to stop forwarding it, then tells the publisher.
    private func forceMute(_ streamId: String, in sessionId: String) async {
        guard let stream = sessions[sessionId]?.streams[streamId], stream.audio != nil else { return }
        guard stream.info.hasAudio else {
            // Muted already, perhaps by a request whose pass over the router is still under way:
            // this one too answers only once the router is in line.
            await stream.audioAlignment?.value
            return
        }
        changeProperty(.hasAudio, of: streamId, in: sessionId, old: .flag(true), new: .flag(false), reason: .forceMuted) {
            $0.hasAudio = false
        }
        await alignAudioConsumers(of: streamId, in: sessionId)
        guard sessions[sessionId]?.streams[streamId] != nil else { return }
        sessions[sessionId]?.connections[stream.publisherConnectionId]?.events.send(.muteForced(MuteForced(streamId: streamId)))
        logger.info("stream force-muted", metadata: ["session": "\(sessionId)", "stream": "\(streamId)"])
    }

    /// The excluded ids, each once, in the order given: at most `maximumExcludedStreamIds`, each
    /// shaped as a stream id can be (an id that names no stream now is allowed: it may be published).
    static func validate(excludedStreamIds ids: [String], at path: String) throws(SignalingError) -> [String] {
        guard ids.count <= maximumExcludedStreamIds else {
            throw .invalidParams(path, "lists \(ids.count) streams; the limit is \(maximumExcludedStreamIds)")
        }
        var seen: Set<String> = []
        var unique: [String] = []
        for (index, id) in ids.enumerated() {
            guard SessionIdentifier.isValid(id) else { throw .invalidParams("\(path)[\(index)]", "is not a stream id: \(SessionIdentifier.rule)") }
            if seen.insert(id).inserted { unique.append(id) }
        }
        return unique
    }
}
