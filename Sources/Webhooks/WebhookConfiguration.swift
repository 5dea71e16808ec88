import Foundation
import Signaling

/// Where the app's backend hears of its sessions (docs/webhooks.md): the endpoints and how hard the
/// server tries to reach them.
public struct WebhookConfiguration: Equatable, Sendable {
    public var endpoints: [WebhookEndpoint]
    /// How long one attempt may take, from connecting to the end of the response.
    public var requestTimeout: Duration
    /// Events waiting for one endpoint (in flight and retrying included) beyond which new events for
    /// it are dropped and counted: a dead endpoint holds at most this many.
    public var maximumQueuedEvents: Int
    /// Sessions whose events go to one endpoint at the same time; a session's own events go one
    /// after the other.
    public var maximumConcurrentDeliveries: Int
    public var retry: WebhookRetryPolicy

    public init(
        endpoints: [WebhookEndpoint], requestTimeout: Duration = .seconds(5), maximumQueuedEvents: Int = 10_000,
        maximumConcurrentDeliveries: Int = 8, retry: WebhookRetryPolicy = WebhookRetryPolicy()
    ) {
        self.endpoints = endpoints
        self.requestTimeout = requestTimeout
        self.maximumQueuedEvents = maximumQueuedEvents
        self.maximumConcurrentDeliveries = maximumConcurrentDeliveries
        self.retry = retry
    }
}

/// One receiver: its URL, its signing secret and the events it wants.
public struct WebhookEndpoint: Equatable, Sendable {
    /// Names the endpoint in metrics, logs and `GET /v1/webhooks/status`.
    public var name: String
    public var url: URL
    /// The HMAC-SHA256 key of the `webhook-signature` header: the secret's UTF-8 bytes.
    public var secret: String
    /// The events it receives; every kind when nil.
    public var events: Set<SessionActivity.Kind>?

    public init(name: String, url: URL, secret: String, events: Set<SessionActivity.Kind>? = nil) {
        self.name = name
        self.url = url
        self.secret = secret
        self.events = events
    }

    public func wants(_ kind: SessionActivity.Kind) -> Bool {
        events?.contains(kind) ?? true
    }
}
