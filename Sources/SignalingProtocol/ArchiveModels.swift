/// How an archive records a session (docs/archiving.md).
public enum ArchiveOutputMode: String, Codable, Equatable, Sendable {
    /// One file per stream, the packets as they arrived (no decoding), and a `manifest.json`.
    case individual
    /// One file of the whole session, the videos tiled and the audio mixed.
    case composed
}

/// Whether a session records by itself.
public enum ArchiveMode: String, Codable, Equatable, Sendable {
    /// Only when the app's backend (or a moderator) starts an archive.
    case manual
    /// An individual archive starts with the session's first stream.
    case always
}

/// Where an archive is in its life.
public enum ArchiveStatus: String, Codable, Equatable, Sendable {
    /// Recording.
    case started
    /// Stopped; its files are being closed.
    case stopped
    /// Stopped, every file closed and the manifest written.
    case available
    /// Ended without a complete recording; `reason` says why. The files written so far still play.
    case failed
}

/// Why an archive failed.
public enum ArchiveFailureReason: String, Codable, Equatable, Sendable {
    /// The daemon stopped (a crash, `kill -9`, power) while it recorded.
    case interrupted
    /// The files reached `archives.maximumBytesPerArchive`.
    case sizeLimit
    /// The archive directory's disk fell below `archives.minimumFreeBytes`.
    case diskFull
    /// A file could not be written (the message in `failureDetail` says which and why).
    case writeFailed
}

/// One file of an archive.
public struct ArchiveFile: Codable, Equatable, Sendable {
    /// Relative to the archive's directory.
    public var name: String
    /// The stream it records; nil for a composed archive's one file.
    public var streamId: String?
    public var connectionId: String?
    /// The publisher's connection data, from its token.
    public var connectionData: String?
    /// Milliseconds from the archive's start to the file's first media, and to its last.
    public var startOffsetMs: Int64
    public var stopOffsetMs: Int64?
    public var hasAudio: Bool
    public var hasVideo: Bool
    public var sizeBytes: Int64

    public init(
        name: String, streamId: String?, connectionId: String?, connectionData: String?, startOffsetMs: Int64,
        stopOffsetMs: Int64?,
        hasAudio: Bool, hasVideo: Bool, sizeBytes: Int64
    ) {
        self.name = name
        self.streamId = streamId
        self.connectionId = connectionId
        self.connectionData = connectionData
        self.startOffsetMs = startOffsetMs
        self.stopOffsetMs = stopOffsetMs
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.sizeBytes = sizeBytes
    }
}

/// An archive as the REST API and `manifest.json` describe it.
public struct ArchiveInfo: Codable, Equatable, Sendable {
    public var id: String
    public var sessionId: String
    public var name: String
    public var outputMode: ArchiveOutputMode
    public var hasAudio: Bool
    public var hasVideo: Bool
    public var status: ArchiveStatus
    public var reason: ArchiveFailureReason?
    public var failureDetail: String?
    /// Milliseconds since the Unix epoch.
    public var createdAt: Int64
    /// Seconds recorded so far, or in all once stopped.
    public var duration: Double
    /// Bytes of all its files.
    public var size: Int64
    public var files: [ArchiveFile]
    /// Packets the writer could not take because the disk was slower than the media.
    public var droppedPackets: UInt64
    /// CPU seconds its writer thread used (assembling, writing, and for a composed archive decoding,
    /// composing and encoding): what recording costs beside forwarding.
    public var writerCPUSeconds: Double?

    public init(
        id: String, sessionId: String, name: String, outputMode: ArchiveOutputMode, hasAudio: Bool, hasVideo: Bool,
        status: ArchiveStatus,
        reason: ArchiveFailureReason? = nil, failureDetail: String? = nil, createdAt: Int64, duration: Double = 0,
        size: Int64 = 0,
        files: [ArchiveFile] = [], droppedPackets: UInt64 = 0
    ) {
        self.id = id
        self.sessionId = sessionId
        self.name = name
        self.outputMode = outputMode
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.status = status
        self.reason = reason
        self.failureDetail = failureDetail
        self.createdAt = createdAt
        self.duration = duration
        self.size = size
        self.files = files
        self.droppedPackets = droppedPackets
    }
}

/// One page of `GET /v1/archives`, newest first.
public struct ArchiveList: Codable, Equatable, Sendable {
    public var count: Int
    public var items: [ArchiveInfo]

    public init(count: Int, items: [ArchiveInfo]) {
        self.count = count
        self.items = items
    }
}

/// The archive a `stopArchive` request names.
public struct ArchiveReference: Codable, Equatable, Sendable {
    public var archiveId: String

    public init(archiveId: String) { self.archiveId = archiveId }
}

/// `archiveStarted` and `archiveStopped`, to every connection of the session.
public struct ArchiveEvent: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    /// `archiveStopped` only: how it ended.
    public var status: ArchiveStatus?
    public var reason: ArchiveFailureReason?

    public init(id: String, name: String, status: ArchiveStatus? = nil, reason: ArchiveFailureReason? = nil) {
        self.id = id
        self.name = name
        self.status = status
        self.reason = reason
    }
}
