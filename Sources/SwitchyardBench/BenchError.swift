/// Why a run could not go ahead.
public enum BenchError: Error, CustomStringConvertible {
    case invalidOptions(String)
    case daemonFailed(String)
    case setupFailed(String)

    public var description: String {
        switch self {
        case .invalidOptions(let problem): "invalid options: \(problem)"
        case .daemonFailed(let reason): "local daemon: \(reason)"
        case .setupFailed(let reason): "setup: \(reason)"
        }
    }
}
