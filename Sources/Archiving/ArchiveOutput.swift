import MediaControl
import Signaling
import SignalingProtocol

/// What an archive's writer thread feeds: one file per stream (`IndividualArchive`) or one file of
/// the whole session (`ComposedArchive`). Times are nanoseconds of the monotonic clock; everything
/// runs on the archive's writer thread.
protocol ArchiveOutput: AnyObject {
    /// A stream to record from now.
    func add(_ stream: ArchivedStream, now: UInt64)
    /// One packet of the recording transport, by the SSRC the router sends it with.
    func insert(_ packet: RecordingRing.Packet, ssrc: UInt32)
    /// The stream ended: what it sent until now is written, then its part ends.
    func end(_ streamId: String, now: UInt64) throws(ArchiveWriteError)
    /// Writes what is ready.
    func write(now: UInt64) throws(ArchiveWriteError)
    /// Writes what is left and closes every file.
    func finish(now: UInt64) throws(ArchiveWriteError)
    /// The files as the manifest lists them.
    var files: [ArchiveFile] { get }
    /// Bytes written.
    var size: Int64 { get }
    /// Some video has waited for a key frame long enough that its publisher should be asked.
    func needsKeyFrame(now: UInt64) -> Bool
}
