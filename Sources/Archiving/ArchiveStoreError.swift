/// Why the archive store could not start.
public enum ArchiveStoreError: Error, Equatable, CustomStringConvertible {
    /// `archives.directory` could not be made.
    case directory(String, reason: String)

    public var description: String {
        switch self {
        case .directory(let path, let reason): "archives.directory \(path) cannot be used: \(reason)"
        }
    }
}
