/// How one delivery attempt ended, and so whether it is tried again.
public enum WebhookAttemptResult: Equatable, Sendable {
    /// A 2xx answer.
    case delivered
    /// Worth trying again: no answer in time, no connection, or a 5xx, 408 or 429 answer.
    case retry(WebhookFailureCause)
    /// The receiver refused it for good (any other status): logged, counted, not retried.
    case rejected(status: Int)

    /// What an answer's status says.
    public init(status: Int) {
        switch status {
        case 200..<300: self = .delivered
        case 408, 429, 500..<600: self = .retry(.status(status))
        default: self = .rejected(status: status)
        }
    }
}

/// Why an attempt failed, as the metrics count it.
public enum WebhookFailureCause: Equatable, Hashable, Sendable {
    case timeout
    case connection
    case status(Int)

    /// The `cause` label: `timeout`, `connection`, `status5xx`, `status408`, `status429`.
    public var label: String {
        switch self {
        case .timeout: "timeout"
        case .connection: "connection"
        case .status(let status) where (500..<600).contains(status): "status5xx"
        case .status(let status): "status\(status)"
        }
    }
}
