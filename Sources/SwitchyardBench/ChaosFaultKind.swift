/// The faults a chaos run injects, one at a time, in this order, round and round.
public enum ChaosFaultKind: String, CaseIterable, Codable, Sendable {
    /// `kill -9` of a node; the bench starts it again on the same ports once its old heartbeat has
    /// timed out (a node refuses to start under a live node's id).
    case nodeKilled
    /// One client loses its WebSocket and UDP (both ways) for a while, then its network returns.
    case clientNetworkLost
    /// `SIGTERM`: the node drains (its clients move) and exits; the bench starts it again.
    case nodeDrained
    /// PostgreSQL stopped (`pg_ctl stop -m fast`) for `databaseAwaySeconds`, then started again.
    case databaseAway
    /// `SIGSTOP` of a node for `nodeStopSeconds`, then `SIGCONT`.
    case nodeStopped
    /// A client joins a session and never reads its WebSocket while a publisher there broadcasts
    /// large signals: the node must cut it off, and nobody else may notice.
    case slowReader
    /// One subscriber's downlink capped by the kernel (a real queue on the namespace's `lo`, by its
    /// UDP port) for `capSeconds`: its video must give way (audio only, or a lower layer) and come
    /// back after the cap lifts, while nobody else notices. Only with `--cap-kbps` (and root).
    case clientCapped

    /// The kinds a run schedules: every one, but a cap only when the run has caps.
    static func scheduled(caps: Bool) -> [ChaosFaultKind] { allCases.filter { caps || $0 != .clientCapped } }

    /// Whether the fault takes a node out (its own `/health` may fail meanwhile).
    var targetsNode: Bool { self == .nodeKilled || self == .nodeDrained || self == .nodeStopped }
}
