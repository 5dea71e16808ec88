import MediaControl
import SignalingProtocol

extension SessionDirectory {
    /// Longest archive name, in characters.
    static let maximumArchiveNameCharacters = 256
    /// The layouts and sizes a composed archive may ask for.
    static let composedLayouts: Set<String> = ["grid"]
    static let composedResolutions: Set<String> = ["640x480", "1280x720"]
    static let composedFrameRates = 1...30

    /// Starts recording a session: a recording transport in its router, a consumer of each stream's
    /// tracks on it (and of every stream published while it records), and `archiveStarted` to every
    /// connection.
    public func startArchive(
        sessionId: String, by requester: Requester = .application, request: RESTBody.StartArchive
    ) async throws(SignalingError) -> ArchiveInfo {
        try authorizeModeration(requester, in: sessionId, action: "start an archive")
        guard let archiving else {
            throw SignalingError(
                .forbidden, "this server does not record sessions (its configuration turns archives off)")
        }
        guard let session = sessions[sessionId] else { throw SignalingError(.notFound, "no session \(sessionId)") }
        if let current = session.archive {
            throw SignalingError(.conflict, "session \(sessionId) is already being recorded by archive \(current.id)")
        }
        guard !session.isEndToEndEncrypted else {
            throw SignalingError(
                .forbidden,
                "session \(sessionId) is end-to-end encrypted: the router cannot record media it cannot read")
        }
        let start = try Self.validatedArchive(
            request, at: requester.parametersPath, sessionId: sessionId, createdAt: nowMilliseconds)
        let ring = try archiving.begin(start)
        sessions[sessionId]!.archive = SessionArchive(
            id: start.id, name: start.name, hasAudio: start.hasAudio, hasVideo: start.hasVideo,
            isComposed: start.outputMode == .composed,
            streamIds: request.streamIds.map(Set.init))
        let transportID: TransportID
        do throws(SignalingError) {
            transportID = try await createRecordingTransport(in: sessionId, ring: ring)
        } catch {
            if sessions[sessionId]?.archive?.id == start.id { sessions[sessionId]?.archive = nil }
            _ = await archiving.finish(start.id)
            throw error
        }
        guard sessions[sessionId]?.archive?.id == start.id else {
            await closeTransports([transportID])
            _ = await archiving.finish(start.id)
            throw SignalingError(.notFound, "session \(sessionId) ended while its archive started")
        }
        sessions[sessionId]!.archive!.transportID = transportID
        for streamId in sessions[sessionId]!.streams.keys.sorted() { await addStreamToArchive(streamId, in: sessionId) }
        sessions[sessionId]?.broadcast(.archiveStarted(ArchiveEvent(id: start.id, name: start.name)))
        logger.info("archive started", metadata: ["session": "\(sessionId)", "archive": "\(start.id)"])
        let info =
            (try? await archiving.archive(start.id)) ?? nil
            ?? ArchiveInfo(
                id: start.id, sessionId: sessionId, name: start.name, outputMode: start.outputMode,
                hasAudio: start.hasAudio,
                hasVideo: start.hasVideo, status: .started, createdAt: start.createdAt)
        report(.archiveStarted(info), in: sessionId)
        return info
    }

    private func createRecordingTransport(
        in sessionId: String, ring: RecordingRing
    ) async throws(SignalingError) -> TransportID {
        let routerID = try await router(of: sessionId)
        do throws(MediaControlError) {
            return try await media.createRecordingTransport(router: routerID, ring: ring)
        } catch {
            throw Self.mediaError(error)
        }
    }

    /// Stops a session's archive: its files close, and every connection hears `archiveStopped`.
    public func stopArchive(
        sessionId: String, by requester: Requester = .application, archiveId: String
    ) async throws(SignalingError) -> ArchiveInfo {
        try authorizeModeration(requester, in: sessionId, action: "stop an archive")
        guard let archiving else {
            throw SignalingError(
                .forbidden, "this server does not record sessions (its configuration turns archives off)")
        }
        guard let archive = sessions[sessionId]?.archive, archive.id == archiveId, archive.transportID != nil else {
            if let ended = (try? await archiving.archive(archiveId)) ?? nil, ended.sessionId == sessionId {
                throw SignalingError(
                    .conflict, "archive \(archiveId) is not recording (status \(ended.status.rawValue))")
            }
            throw SignalingError(.notFound, "no archive \(archiveId) in session \(sessionId)")
        }
        return await endArchive(archive, of: sessionId)
    }

    /// Stops the archive `archiveId` wherever it records, when it ended by itself (a size or disk
    /// limit, a failed write).
    public func archiveEndedBySelf(_ archiveId: String) async {
        guard
            let (sessionId, archive) = sessions.lazy.compactMap({ id, session in session.archive.map { (id, $0) } })
                .first(where: { $0.1.id == archiveId }),
            archive.transportID != nil
        else { return }
        _ = await endArchive(archive, of: sessionId)
    }

    /// Ends the archive the session records, its recording transport closed first so nothing more
    /// enters its ring.
    @discardableResult
    func endArchive(_ archive: SessionArchive, of sessionId: String) async -> ArchiveInfo {
        sessions[sessionId]?.archive = nil
        if let transportID = archive.transportID { await closeTransports([transportID]) }
        let info = await archiving?.finish(archive.id)
        sessions[sessionId]?.broadcast(
            .archiveStopped(
                ArchiveEvent(id: archive.id, name: archive.name, status: info?.status, reason: info?.reason)))
        logger.info(
            "archive stopped",
            metadata: [
                "session": "\(sessionId)", "archive": "\(archive.id)", "status": "\(info?.status.rawValue ?? "?")",
            ])
        let ended =
            info
            ?? ArchiveInfo(
                id: archive.id, sessionId: sessionId, name: archive.name,
                outputMode: archive.isComposed ? .composed : .individual, hasAudio: archive.hasAudio,
                hasVideo: archive.hasVideo, status: .failed, reason: .writeFailed,
                failureDetail: "the archive's record was lost",
                createdAt: nowMilliseconds)
        report(.archiveStopped(ended), in: sessionId)
        return ended
    }

    /// Records a stream in the session's archive, when one records and the stream is among those it
    /// records: a consumer per track on the recording transport (paused as the publisher's choices
    /// pause every subscriber's), then the stream handed to the writer.
    func addStreamToArchive(_ streamId: String, in sessionId: String) async {
        guard let archive = sessions[sessionId]?.archive, let transportID = archive.transportID,
            archive.records(streamId),
            archive.consumers[streamId] == nil, let stream = sessions[sessionId]?.streams[streamId]
        else { return }
        // Opus, VP8 and (in individual archives) H.264 are recorded; a track the archive would not
        // record is not consumed, so it costs the ring nothing.
        let videoCodecs: Set<CodecName> = archive.isComposed ? [.vp8] : [.vp8, .h264]
        var tracks: [(PublishedTrack, Bool)] = []
        if archive.hasAudio, let audio = stream.audio, CodecName(audio.description.codec) == .opus {
            tracks.append((audio, !stream.info.hasAudio))
        }
        if archive.hasVideo, let video = stream.video, videoCodecs.contains(CodecName(video.description.codec)) {
            tracks.append((video, !stream.info.hasVideo))
        }
        // Taken now, so a second call for the stream while these consumers are made does nothing.
        sessions[sessionId]!.archive!.consumers[streamId] = []
        var consumers: [ConsumerParameters] = []
        for (track, paused) in tracks {
            do {
                consumers.append(
                    try await media.consume(
                        transport: transportID, producer: track.producerID,
                        pauseReasons: paused ? [.publisherChoice] : []))
            } catch {
                logger.warning(
                    "archive cannot record a track",
                    metadata: ["archive": "\(archive.id)", "stream": "\(streamId)", "error": "\(error)"])
            }
        }
        guard sessions[sessionId]?.archive?.id == archive.id, sessions[sessionId]?.streams[streamId] != nil else {
            return
        }
        sessions[sessionId]!.archive!.consumers[streamId] = consumers
        archiving?.addStream(
            ArchivedStream(
                streamId: streamId, connectionId: stream.info.connection.connectionId,
                connectionData: stream.info.connection.data,
                declaredVideoSize: stream.info.videoDimensions, tracks: consumers),
            to: archive.id)
    }

    /// A stream was just published: the archive recording the session takes it, or, in a session that
    /// archives automatically, its first stream starts one.
    func recordNewStream(_ streamId: String, in sessionId: String) async {
        guard let session = sessions[sessionId] else { return }
        if session.archive != nil {
            await addStreamToArchive(streamId, in: sessionId)
        } else if session.archivesAutomatically, !session.isEndToEndEncrypted {
            do throws(SignalingError) {
                _ = try await startArchive(sessionId: sessionId, request: RESTBody.StartArchive())
            } catch {
                logger.warning(
                    "automatic archive not started", metadata: ["session": "\(sessionId)", "error": "\(error.message)"])
            }
        }
    }

    /// The stream ended: its file in the session's archive closes.
    func endArchivedStream(_ streamId: String, in sessionId: String) {
        guard let archive = sessions[sessionId]?.archive, archive.consumers[streamId] != nil else { return }
        sessions[sessionId]!.archive!.consumers[streamId] = nil
        archiving?.endStream(streamId, of: archive.id)
    }

    /// The archive's consumer of a stream's track, to pause and resume with the subscribers'.
    func archiveConsumer(of streamId: String, kind: MediaKind, in sessionId: String) -> ConsumerID? {
        sessions[sessionId]?.archive?.consumers[streamId]?.first { $0.kind == kind }?.consumerID
    }

    /// Archives newest first, of one session or of all.
    public nonisolated func archives(
        sessionId: String?, offset: Int, count: Int
    ) async throws(SignalingError) -> ArchiveList {
        guard let archiving else {
            throw SignalingError(
                .forbidden, "this server does not record sessions (its configuration turns archives off)")
        }
        return try await archiving.list(sessionId: sessionId, offset: offset, count: count)
    }

    public nonisolated func archive(_ archiveId: String) async throws(SignalingError) -> ArchiveInfo {
        guard let archiving else {
            throw SignalingError(
                .forbidden, "this server does not record sessions (its configuration turns archives off)")
        }
        guard let info = try await archiving.archive(archiveId) else {
            throw SignalingError(.notFound, "no archive \(archiveId)")
        }
        return info
    }

    /// Deletes an archive whose files are here, or names the node of the cluster that holds them.
    public nonisolated func deleteArchive(_ archiveId: String) async throws(SignalingError) -> ArchiveDeletion {
        guard let archiving else {
            throw SignalingError(
                .forbidden, "this server does not record sessions (its configuration turns archives off)")
        }
        return try await archiving.delete(archiveId)
    }

    /// The archive `request` asks for, its fields' paths under `root` in a refusal.
    private static func validatedArchive(
        _ request: RESTBody.StartArchive, at root: String, sessionId: String, createdAt: Int64
    ) throws(SignalingError) -> ArchiveStart {
        let name = request.name ?? ""
        guard name.count <= maximumArchiveNameCharacters else {
            throw .invalidParams(
                "\(root).name", "must be at most \(maximumArchiveNameCharacters) characters, not \(name.count)")
        }
        let mode = request.outputMode ?? .individual
        let hasAudio = request.hasAudio ?? true
        let hasVideo = request.hasVideo ?? true
        guard hasAudio || hasVideo else { throw .invalidParams(root, "hasAudio and hasVideo cannot both be false") }
        if let streamIds = request.streamIds, streamIds.isEmpty {
            throw .invalidParams("\(root).streamIds", "must name at least one stream when given")
        }
        var composition: ArchiveComposition?
        switch mode {
        case .individual:
            if request.layout != nil { throw .invalidParams("\(root).layout", "only goes with outputMode composed") }
            if request.resolution != nil {
                throw .invalidParams("\(root).resolution", "only goes with outputMode composed")
            }
            if request.frameRate != nil {
                throw .invalidParams("\(root).frameRate", "only goes with outputMode composed")
            }
        case .composed:
            if let layout = request.layout, !composedLayouts.contains(layout) {
                throw .invalidParams(
                    "\(root).layout",
                    "must be one of \(composedLayouts.sorted().joined(separator: ", ")), not \"\(layout)\"")
            }
            let resolution = request.resolution ?? "640x480"
            guard composedResolutions.contains(resolution) else {
                throw .invalidParams(
                    "\(root).resolution",
                    "must be one of \(composedResolutions.sorted().joined(separator: ", ")), not \"\(resolution)\"")
            }
            let frameRate = request.frameRate ?? 15
            guard composedFrameRates.contains(frameRate) else {
                throw .invalidParams(
                    "\(root).frameRate",
                    "must be \(composedFrameRates.lowerBound)-\(composedFrameRates.upperBound), not \(frameRate)")
            }
            let size = resolution.split(separator: "x").compactMap { Int($0) }
            composition = ArchiveComposition(width: size[0], height: size[1], frameRate: frameRate)
        }
        return ArchiveStart(
            id: SessionIdentifier.make(prefix: "ar_"), sessionId: sessionId, name: name, outputMode: mode,
            hasAudio: hasAudio, hasVideo: hasVideo,
            createdAt: createdAt, composition: composition)
    }
}
