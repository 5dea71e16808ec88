import MediaControl

/// Why the daemon could not start.
public enum DaemonError: Error, CustomStringConvertible {
    case mediaPlane(MediaControlError)
    case tls(String)
    /// The browser client's files could not be loaded.
    case webClient(String)

    public var description: String {
        switch self {
        case .mediaPlane(let error): "the media plane could not start: \(error)"
        case .tls(let reason): "TLS setup failed: \(reason)"
        case .webClient(let reason): "the browser client could not be served: \(reason)"
        }
    }
}
