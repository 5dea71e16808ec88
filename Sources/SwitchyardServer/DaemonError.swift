import Archiving
import Cluster
import MediaControl

/// Why the daemon could not start.
public enum DaemonError: Error, CustomStringConvertible {
    case mediaPlane(MediaControlError)
    case tls(String)
    case cluster(ClusterError)
    case archives(ArchiveStoreError)

    public var description: String {
        switch self {
        case .mediaPlane(let error): "the media plane could not start: \(error)"
        case .tls(let reason): "TLS setup failed: \(reason)"
        case .cluster(let error): "could not join the cluster: \(error)"
        case .archives(let error): "archives cannot be recorded: \(error)"
        }
    }
}
