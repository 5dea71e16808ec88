/// What one HTTP connection, and one address, may hold of the server before anyone is authenticated:
/// descriptors, time and header bytes. Read from `server.http` (docs/configuration.md).
public struct HTTPServerLimits: Equatable, Sendable {
    /// Open HTTP and WebSocket connections in all.
    public var maximumConnections: Int
    /// Open connections from one remote address.
    public var maximumConnectionsPerAddress: Int
    /// Time from accepting a connection to the end of its first request's head.
    public var headerTimeout: Duration
    /// Time a kept-alive connection may wait between requests (not WebSockets).
    public var idleTimeout: Duration
    /// Bytes of a request head: request line, header fields and the empty line after them.
    public var maximumHeaderBytes: Int
    /// Header fields of one request.
    public var maximumHeaderFields: Int
    /// Time the server keeps trying to write to a peer that does not read before it resets the
    /// connection. The daemon sets it to the WebSocket ping interval, the deadline for a pong.
    public var writeStallTimeout: Duration

    public init(
        maximumConnections: Int = 10_000, maximumConnectionsPerAddress: Int = 2_000, headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60), maximumHeaderBytes: Int = 16_384, maximumHeaderFields: Int = 100,
        writeStallTimeout: Duration = .seconds(15)
    ) {
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maximumHeaderBytes = maximumHeaderBytes
        self.maximumHeaderFields = maximumHeaderFields
        self.writeStallTimeout = writeStallTimeout
    }
}
