/// What a node reports of itself at each heartbeat; counters are totals since it started.
public struct NodeLoadSample: Sendable {
    public var sessions: Int
    public var connections: Int
    public var streams: Int
    public var subscribers: Int
    public var packetsForwarded: UInt64
    public var cpuSeconds: Double

    public init(sessions: Int, connections: Int, streams: Int, subscribers: Int, packetsForwarded: UInt64, cpuSeconds: Double) {
        self.sessions = sessions
        self.connections = connections
        self.streams = streams
        self.subscribers = subscribers
        self.packetsForwarded = packetsForwarded
        self.cpuSeconds = cpuSeconds
    }
}
