/// How the webhooks scenario's receiver answers the daemon.
public enum WebhookReceiverMode: String, CaseIterable, Codable, Sendable {
    /// Every correctly signed POST answered 204 at once: whether every event arrives, in order, once.
    case normal
    /// Every POST read and then never answered until the run ends, as a backend that hangs would:
    /// whether the daemon's queue stays within its bound and its signaling keeps its pace.
    case silent
}
