import SignalingProtocol

/// What a session was made with, which must outlive the node that holds it: in a cluster, the node
/// that makes a session again after it moved (its node drained or died) makes it with these, so a
/// broadcast stays suppressed and an end-to-end encrypted session stays encrypted.
public struct SessionSettings: Codable, Equatable, Sendable {
    /// Made by `POST /v1/sessions`: it stays when its last connection leaves.
    public var createdThroughREST: Bool
    public var audio: SessionAudioSettings?
    public var e2ee: Bool
    public var connectionEventsSuppressed: Bool
    public var archiveMode: ArchiveMode

    public init(
        createdThroughREST: Bool, audio: SessionAudioSettings?, e2ee: Bool, connectionEventsSuppressed: Bool, archiveMode: ArchiveMode
    ) {
        self.createdThroughREST = createdThroughREST
        self.audio = audio
        self.e2ee = e2ee
        self.connectionEventsSuppressed = connectionEventsSuppressed
        self.archiveMode = archiveMode
    }
}
