import Foundation
import SignalingProtocol

/// Where a session lives in a cluster.
public enum SessionLocation: Equatable, Sendable {
    case here
    case node(ClusterNodeAddress)
}

/// How clients and other nodes reach a node of the cluster.
public struct ClusterNodeAddress: Hashable, Sendable, Codable {
    public var nodeId: String
    /// The node's client WebSocket, e.g. `wss://node-b.example.com/v1/ws`.
    public var signalingURL: String
    /// The base URL other nodes forward REST requests to, e.g. `http://10.0.0.12:7880`.
    public var internalURL: String
    /// The node's process as the registry knew it when this address was read: a node started again
    /// under its id is another instance, which holds nothing the earlier one held. Nil from a node
    /// that does not say.
    public var instance: String?

    public init(nodeId: String, signalingURL: String, internalURL: String, instance: String? = nil) {
        self.nodeId = nodeId
        self.signalingURL = signalingURL
        self.internalURL = internalURL
        self.instance = instance
    }

    /// The node's HTTP address as clients reach it: `signalingURL` as `httpBase(ofWebSocket:)` gives it.
    public var publicHTTPURL: String { Self.httpBase(ofWebSocket: signalingURL) ?? internalURL }

    /// A client WebSocket URL's server as an HTTP base URL: `ws` made `http` (`wss` `https`), without
    /// the path (`ws://host:7880/v1/ws` → `http://host:7880`); nil when it is not a URL.
    public static func httpBase(ofWebSocket url: String) -> String? {
        guard var components = URLComponents(string: url) else { return nil }
        components.scheme = components.scheme == "wss" ? "https" : "http"
        components.path = ""
        components.query = nil
        return components.string
    }
}

/// A REST request as it arrived, to be answered by the node that holds its session.
public struct ForwardedRequest: Sendable {
    public var method: String
    /// Path and query, e.g. `/v1/sessions/s_1/signal`.
    public var path: String
    public var authorization: String?
    public var contentType: String?
    public var body: Data

    public init(method: String, path: String, authorization: String?, contentType: String?, body: Data) {
        self.method = method
        self.path = path
        self.authorization = authorization
        self.contentType = contentType
        self.body = body
    }
}

/// The answer of the node that held the session, passed back unchanged.
public struct ForwardedResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headers: [(name: String, value: String)], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The cluster seen from signaling: which node holds a session, and a way to hand a REST request to
/// it. Absent on a single node, where every session is here.
public protocol SessionPlacement: Sendable {
    /// This node's id in the cluster.
    var nodeId: String { get }
    /// Where `sessionId` lives, placing it first when no live node holds it: here, if this node is
    /// the least loaded of the live nodes that take sessions, else on that node. Two nodes placing
    /// one session at once get the same answer.
    func place(sessionId: String) async throws(SignalingError) -> SessionLocation
    /// Where `sessionId` lives, without placing it; nil when no live node holds it.
    func locate(sessionId: String) async throws(SignalingError) -> SessionLocation?
    /// The session ended on this node: its placement and its kept settings go.
    func sessionEnded(sessionId: String) async
    /// Keeps the settings of a session this node holds (made or changed through REST), for the
    /// node that makes it again after it moved.
    func keep(_ settings: SessionSettings, ofSession sessionId: String) async throws(SignalingError)
    /// The settings kept for `sessionId`; nil when none were (it was made by a client's `connect`
    /// and never changed through REST).
    func keptSettings(ofSession sessionId: String) async throws(SignalingError) -> SessionSettings?
    /// Sends a REST request to the node that holds its session and returns that node's answer.
    func forward(_ request: ForwardedRequest, to node: ClusterNodeAddress) async throws(SignalingError) -> ForwardedResponse
    /// A live node's address by its id; nil when no live node has it.
    func address(ofNode nodeId: String) async throws(SignalingError) -> ClusterNodeAddress?
    /// The cluster's nodes, their load and their sessions, for `GET /v1/cluster`.
    func overview() async throws(SignalingError) -> ClusterOverview
}

/// The request header a forwarded REST request carries: the node that received it. A node answers
/// such a request itself and never forwards it again, so a placement that moved meanwhile costs a
/// 404, not a loop.
public let forwardedByHeader = "Switchyard-Forwarded-By"
