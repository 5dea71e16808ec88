import Foundation
import Logging
import MediaControl
import Signaling
import SignalingProtocol
import Synchronization

/// The node's archives: those recording (each with its `ArchiveRecorder`) and those ended, whose
/// `manifest.json` it reads back at start. An archive the daemon was recording when it died reads
/// `failed` / `interrupted` from then on; the files it wrote stay and play. In a cluster every
/// description it writes goes to the shared catalog too, in the order written, and lists and
/// lookups read the catalog, so any node answers for every archive.
public final class ArchiveStore: SessionArchiving, @unchecked Sendable {
    public let configuration: ArchivingConfiguration
    private let logger: Logger
    private let state = Mutex<State>(State())

    private struct State {
        var archives: [String: ArchiveInfo] = [:]
        var recorders: [String: ArchiveRecorder] = [:]
        var onSelfStop: (@Sendable (String) -> Void)?
        /// The cluster's catalog and this node's id there; the queue of descriptions for it.
        var catalog: (catalog: any ArchiveCatalog, nodeId: String)?
        var catalogQueue: AsyncStream<ArchiveInfo>.Continuation?
        var catalogWriter: Task<Void, Never>?
    }

    /// In a cluster: keeps every archive's description in `catalog` as well, starting with those
    /// already here (the interrupted ones marked so), and reads lists and lookups from it.
    public func attach(_ catalog: any ArchiveCatalog, nodeId: String) {
        let (stream, continuation) = AsyncStream.makeStream(of: ArchiveInfo.self)
        let known = state.withLock { state in
            state.catalog = (catalog, nodeId)
            state.catalogQueue = continuation
            return Array(state.archives.values)
        }
        for info in known { continuation.yield(info) }
        let logger = logger
        let writer = Task {
            for await info in stream {
                do throws(SignalingError) {
                    try await catalog.save(info, nodeId: nodeId)
                } catch {
                    // The local manifest stays right; the catalog catches up at the next change.
                    logger.warning(
                        "archive not saved in the cluster's catalog",
                        metadata: ["archive": "\(info.id)", "error": "\(error.message)"])
                }
            }
        }
        state.withLock { $0.catalogWriter = writer }
    }

    /// At shutdown, once every archive ended: waits until the catalog has every description queued,
    /// so the cluster lists them as they ended.
    public func flushCatalog() async {
        let writer = state.withLock { state in
            state.catalogQueue?.finish()
            state.catalogQueue = nil
            return state.catalogWriter
        }
        await writer?.value
    }

    /// Told the id of an archive that stopped by itself (a size or disk limit, a failed write), so
    /// its session's recording ends and its clients hear `archiveStopped`.
    public func onSelfStop(_ handler: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.onSelfStop = handler }
    }

    /// Reads the archives already in `configuration.directory` and marks those left recording as
    /// interrupted. The directory is made with the first archive.
    public init(configuration: ArchivingConfiguration, logger: Logger) throws(ArchiveStoreError) {
        self.configuration = configuration
        self.logger = logger
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: configuration.directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw .directory(configuration.directory, reason: "it is a file, not a directory")
        }
        let names = (try? manager.contentsOfDirectory(atPath: configuration.directory)) ?? []
        var found: [String: ArchiveInfo] = [:]
        for name in names {
            let path = "\(configuration.directory)/\(name)/manifest.json"
            guard let data = manager.contents(atPath: path),
                var info = try? JSONDecoder().decode(ArchiveInfo.self, from: data)
            else { continue }
            if info.status == .started || info.status == .stopped {
                info.status = .failed
                info.reason = .interrupted
                info.failureDetail = "the daemon stopped while it recorded; the files hold what was written until then"
                info.files = info.files.map { file in
                    var file = file
                    file.sizeBytes = Self.fileSize("\(configuration.directory)/\(name)/\(file.name)")
                    return file
                }
                info.size = info.files.reduce(0) { $0 + $1.sizeBytes }
                // The manifest is at most a few seconds behind what the files hold.
                let lastMedia = info.files.compactMap(\.stopOffsetMs).max() ?? 0
                info.duration = max(info.duration, Double(lastMedia) / 1000)
                Self.writeManifest(info, directory: configuration.directory, logger: logger)
                logger.warning(
                    "archive interrupted by a restart",
                    metadata: ["archive": "\(info.id)", "session": "\(info.sessionId)"])
            }
            found[info.id] = info
        }
        state.withLock { $0.archives = found }
    }

    public func begin(_ start: ArchiveStart) throws(SignalingError) -> RecordingRing {
        let directory = "\(configuration.directory)/\(start.id)"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw SignalingError(
                .internalError, "cannot make the archive's directory \(directory): \(error.localizedDescription)")
        }
        if let free = ArchiveRecorder.freeBytes(at: configuration.directory), free < configuration.minimumFreeBytes {
            try? FileManager.default.removeItem(atPath: directory)
            throw SignalingError(
                .limitReached,
                "the archive directory has \(free) bytes free, under archives.minimumFreeBytes (\(configuration.minimumFreeBytes))"
            )
        }
        let info = ArchiveInfo(
            id: start.id, sessionId: start.sessionId, name: start.name, outputMode: start.outputMode,
            hasAudio: start.hasAudio,
            hasVideo: start.hasVideo, status: .started, createdAt: start.createdAt)
        let output: (UInt64) throws(ArchiveWriteError) -> any ArchiveOutput = { startedAt throws(ArchiveWriteError) in
            guard let composition = start.composition else {
                return IndividualArchive(
                    directory: directory, includeAudio: start.hasAudio, includeVideo: start.hasVideo,
                    startedAt: startedAt)
            }
            return try ComposedArchive(
                directory: directory, width: composition.width, height: composition.height,
                frameRate: composition.frameRate,
                includeAudio: start.hasAudio, includeVideo: start.hasVideo, startedAt: startedAt)
        }
        let recorder: ArchiveRecorder
        do throws(ArchiveWriteError) {
            recorder = try ArchiveRecorder(
                id: start.id, directory: directory, limits: configuration, makeOutput: output,
                onSelfStop: { [weak self] id in self?.state.withLock { $0.onSelfStop }?(id) },
                onManifestChange: { [weak self] id, progress in self?.manifestChanged(id, progress: progress) })
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw SignalingError(.internalError, "the archive's output could not start: \(error)")
        }
        let accepted: Bool = state.withLock { state in
            guard state.recorders.count < configuration.maximumConcurrent else { return false }
            state.recorders[start.id] = recorder
            state.archives[start.id] = info
            return true
        }
        guard accepted else {
            try? FileManager.default.removeItem(atPath: directory)
            throw SignalingError(
                .limitReached,
                "this server already records \(configuration.maximumConcurrent) archives (archives.maximumConcurrent)")
        }
        publish(info)
        recorder.start()
        return recorder.ring
    }

    public func addStream(_ stream: ArchivedStream, to archiveId: String) {
        state.withLock { $0.recorders[archiveId] }?.add(stream)
    }

    public func endStream(_ streamId: String, of archiveId: String) {
        state.withLock { $0.recorders[archiveId] }?.end(streamId)
    }

    public func finish(_ archiveId: String) async -> ArchiveInfo? {
        let recorder: ArchiveRecorder? = state.withLock { state in
            guard let recorder = state.recorders[archiveId] else { return nil }
            state.archives[archiveId]?.status = .stopped
            return recorder
        }
        guard let recorder else { return state.withLock { $0.archives[archiveId] } }
        let outcome = await recorder.stop()
        let info: ArchiveInfo? = state.withLock { state in
            state.recorders[archiveId] = nil
            guard var info = state.archives[archiveId] else { return nil }
            info.files = outcome.files
            info.size = outcome.size
            info.duration = Double(outcome.durationMs) / 1000
            info.droppedPackets = recorder.ring.drops
            info.writerCPUSeconds = outcome.cpuSeconds
            if let failure = outcome.failure {
                info.status = .failed
                info.reason = failure.reason
                info.failureDetail = failure.detail
            } else {
                info.status = .available
            }
            state.archives[archiveId] = info
            return info
        }
        if let info {
            publish(info)
            logger.info(
                "archive ended",
                metadata: [
                    "archive": "\(archiveId)", "status": "\(info.status.rawValue)", "bytes": "\(info.size)",
                    "files": "\(info.files.count)",
                ])
        }
        return info
    }

    public func archive(_ archiveId: String) async throws(SignalingError) -> ArchiveInfo? {
        if let local = localArchive(archiveId) { return local }
        guard let catalog = state.withLock({ $0.catalog?.catalog }) else { return nil }
        return try await catalog.find(archiveId)?.archive
    }

    /// An archive of this node, with a recording one's progress.
    private func localArchive(_ archiveId: String) -> ArchiveInfo? {
        let (stored, recorder) = state.withLock { ($0.archives[archiveId], $0.recorders[archiveId]) }
        guard var info = stored else { return nil }
        if let recorder { Self.apply(recorder.progress, dropped: recorder.ring.drops, to: &info) }
        return info
    }

    public func list(sessionId: String?, offset: Int, count: Int) async throws(SignalingError) -> ArchiveList {
        let (stored, catalog) = state.withLock { ($0.archives, $0.catalog?.catalog) }
        var list: ArchiveList
        if let catalog {
            list = try await catalog.list(sessionId: sessionId, offset: offset, count: count)
        } else {
            var all = stored.values.filter { sessionId == nil || $0.sessionId == sessionId }
            all.sort { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
            list = ArchiveList(count: all.count, items: Array(all.dropFirst(offset).prefix(count)))
        }
        // This node's own archives as it knows them now: the catalog may be a few seconds behind.
        list.items = list.items.map { localArchive($0.id) ?? $0 }
        return list
    }

    public func delete(_ archiveId: String) async throws(SignalingError) -> ArchiveDeletion {
        let (local, recording, catalog) = state.withLock {
            ($0.archives[archiveId], $0.recorders[archiveId] != nil, $0.catalog)
        }
        guard let local else {
            guard let catalog, let held = try await catalog.catalog.find(archiveId) else {
                throw SignalingError(.notFound, "no archive \(archiveId)")
            }
            guard held.nodeId != catalog.nodeId else {
                // Catalogued as this node's, with no files here (deleted by hand): only the record is left.
                try await catalog.catalog.remove(archiveId)
                return .deleted
            }
            return .heldBy(nodeId: held.nodeId)
        }
        guard !recording else {
            throw SignalingError(
                .conflict, "archive \(archiveId) is recording (status \(local.status.rawValue)); stop it first")
        }
        // The shared record goes first: were the database away, the files stay and the request can be repeated.
        try await catalog?.catalog.remove(archiveId)
        guard state.withLock({ $0.archives.removeValue(forKey: archiveId) }) != nil else {
            throw SignalingError(.notFound, "no archive \(archiveId)")
        }
        do {
            try FileManager.default.removeItem(atPath: "\(configuration.directory)/\(archiveId)")
        } catch {
            logger.warning("archive files not removed", metadata: ["archive": "\(archiveId)", "error": "\(error)"])
        }
        return .deleted
    }

    private func manifestChanged(_ archiveId: String, progress: ArchiveRecorder.Progress) {
        let info: ArchiveInfo? = state.withLock { state in
            guard var info = state.archives[archiveId], info.status == .started || info.status == .stopped else {
                return nil
            }
            Self.apply(progress, dropped: state.recorders[archiveId]?.ring.drops ?? info.droppedPackets, to: &info)
            state.archives[archiveId] = info
            return info
        }
        if let info { publish(info) }
    }

    /// Writes the archive's manifest, and in a cluster queues it for the catalog.
    private func publish(_ info: ArchiveInfo) {
        Self.writeManifest(info, directory: configuration.directory, logger: logger)
        _ = state.withLock { $0.catalogQueue }?.yield(info)
    }

    private static func apply(_ progress: ArchiveRecorder.Progress, dropped: UInt64, to info: inout ArchiveInfo) {
        info.files = progress.files
        info.size = progress.size
        info.duration = Double(progress.durationMs) / 1000
        info.droppedPackets = dropped
        info.writerCPUSeconds = progress.cpuSeconds
    }

    /// Writes `manifest.json` whole to a temporary file and renames it, so a crash never leaves half of one.
    private static func writeManifest(_ info: ArchiveInfo, directory: String, logger: Logger) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let path = "\(directory)/\(info.id)/manifest.json"
        do {
            try encoder.encode(info).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            logger.error(
                "archive manifest not written",
                metadata: ["archive": "\(info.id)", "path": "\(path)", "error": "\(error)"])
        }
    }

    private static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
