import SignalingProtocol

/// The cluster's shared list of archives (a PostgreSQL table, `Cluster`'s `PostgresArchiveCatalog`):
/// each node keeps the description of every archive it records there, so any node lists them all
/// and knows which node holds an archive's files.
public protocol ArchiveCatalog: Sendable {
    /// Keeps `archive`'s latest description, recorded on `nodeId`.
    func save(_ archive: ArchiveInfo, nodeId: String) async throws(SignalingError)
    /// One archive and the node that holds its files.
    func find(_ archiveId: String) async throws(SignalingError) -> CatalogedArchive?
    /// Archives newest first, of one session or all.
    func list(sessionId: String?, offset: Int, count: Int) async throws(SignalingError) -> ArchiveList
    /// Forgets an archive whose files were deleted.
    func remove(_ archiveId: String) async throws(SignalingError)
}

/// An archive as the catalog has it.
public struct CatalogedArchive: Sendable {
    public var archive: ArchiveInfo
    /// The node that recorded it and holds its files.
    public var nodeId: String

    public init(archive: ArchiveInfo, nodeId: String) {
        self.archive = archive
        self.nodeId = nodeId
    }
}

/// What deleting an archive came to.
public enum ArchiveDeletion: Equatable, Sendable {
    /// Its files and its record are gone.
    case deleted
    /// Another node of the cluster holds its files: the request goes there.
    case heldBy(nodeId: String)
}
