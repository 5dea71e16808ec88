import MediaControl

/// Why the daemon could not start.
public enum DaemonError: Error, CustomStringConvertible {
    case configuration(ConfigurationError)
    case mediaPlane(MediaControlError)
    case tls(String)

    public var description: String {
        switch self {
        case .configuration(let error): "configuration error: \(error)"
        case .mediaPlane(let error): "the media plane could not start: \(error)"
        case .tls(let reason): "TLS setup failed: \(reason)"
        }
    }
}
