import MediaControl
import SignalingProtocol

/// What records sessions (the `Archiving` target, docs/archiving.md): the directory hands it the
/// streams of an archived session as they come and go, and it writes their media from the ring a
/// recording transport fills. Its methods return at once; the files are written on its own threads.
public protocol SessionArchiving: Sendable {
    /// Starts an archive of `sessionId`; the recording transport's consumers forward into the ring
    /// returned. Refuses what the configuration does not allow (mode, disk space, archives at once).
    func begin(_ archive: ArchiveStart) throws(SignalingError) -> RecordingRing
    /// A stream to record from now, its tracks as the recording transport's consumers send them.
    func addStream(_ stream: ArchivedStream, to archiveId: String)
    /// A stream of the archive ended.
    func endStream(_ streamId: String, of archiveId: String)
    /// Ends the archive: closes its files and writes its manifest, then answers with how it ended.
    func finish(_ archiveId: String) async -> ArchiveInfo?
    /// One archive, recording or ended (in a cluster, of any node).
    func archive(_ archiveId: String) async throws(SignalingError) -> ArchiveInfo?
    /// Archives newest first, of one session or all (in a cluster, of every node).
    func list(sessionId: String?, offset: Int, count: Int) async throws(SignalingError) -> ArchiveList
    /// Deletes an ended archive and its files, when they are on this node.
    func delete(_ archiveId: String) async throws(SignalingError) -> ArchiveDeletion
}

/// An archive about to start.
public struct ArchiveStart: Sendable {
    public var id: String
    public var sessionId: String
    public var name: String
    public var outputMode: ArchiveOutputMode
    public var hasAudio: Bool
    public var hasVideo: Bool
    /// Milliseconds since the Unix epoch.
    public var createdAt: Int64
    /// A composed archive's picture size and frame rate.
    public var composition: ArchiveComposition?
}

/// The output of a composed archive.
public struct ArchiveComposition: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var frameRate: Int
}

/// A stream an archive records.
public struct ArchivedStream: Sendable {
    public var streamId: String
    public var connectionId: String
    public var connectionData: String?
    /// The stream's video size as its publisher declared it, used until a key frame tells.
    public var declaredVideoSize: VideoDimensions?
    /// The recording transport's consumers of the stream, as `consume` answered.
    public var tracks: [ConsumerParameters]

    public init(
        streamId: String, connectionId: String, connectionData: String?, declaredVideoSize: VideoDimensions?,
        tracks: [ConsumerParameters]
    ) {
        self.streamId = streamId
        self.connectionId = connectionId
        self.connectionData = connectionData
        self.declaredVideoSize = declaredVideoSize
        self.tracks = tracks
    }
}
