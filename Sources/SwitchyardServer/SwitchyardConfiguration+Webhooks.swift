import Foundation
import Signaling
import Webhooks

extension SwitchyardConfiguration {
    /// Reads `webhooks`: `endpoints` (each a `url`, a `secret`, an optional `name` and `events`),
    /// `requestTimeoutSeconds`, `maxQueuedEvents`, `maxConcurrentDeliveries` and `retry`.
    static func webhooks(_ reader: inout ConfigurationReader) throws(ConfigurationError) -> WebhookConfiguration {
        guard let endpointReaders = try reader.optionalObjects("endpoints"), !endpointReaders.isEmpty else {
            throw ConfigurationError(keyPath: reader.keyPath("endpoints"), problem: "must list at least one endpoint ({\"url\", \"secret\"})")
        }
        var endpoints: [WebhookEndpoint] = []
        for var endpointReader in endpointReaders {
            let endpoint = try webhookEndpoint(&endpointReader, index: endpoints.count)
            if endpoints.contains(where: { $0.name == endpoint.name }) {
                throw ConfigurationError(keyPath: endpointReader.keyPath("name"), problem: "\"\(endpoint.name)\" names two endpoints")
            }
            endpoints.append(endpoint)
        }
        let timeout = try reader.number("requestTimeoutSeconds", default: 5, in: 0.1...60)
        let queued = try reader.integer("maxQueuedEvents", default: 10_000, in: 10...1_000_000)
        let concurrent = try reader.integer("maxConcurrentDeliveries", default: 8, in: 1...256)
        var retryReader = try reader.object("retry")
        let initialDelay = try retryReader.number("initialDelaySeconds", default: 1, in: 0.01...3600)
        let maximumDelay = try retryReader.number("maxDelaySeconds", default: 60, in: 0.01...86_400)
        guard maximumDelay >= initialDelay else {
            throw ConfigurationError(
                keyPath: retryReader.keyPath("maxDelaySeconds"), problem: "\(maximumDelay) is below initialDelaySeconds (\(initialDelay))")
        }
        let giveUpAfter = try retryReader.number("giveUpAfterSeconds", default: 86_400, in: 1...604_800)
        try retryReader.finish()
        try reader.finish()
        return WebhookConfiguration(
            endpoints: endpoints, requestTimeout: .seconds(timeout), maximumQueuedEvents: queued, maximumConcurrentDeliveries: concurrent,
            retry: WebhookRetryPolicy(initialDelay: .seconds(initialDelay), maximumDelay: .seconds(maximumDelay), giveUpAfter: .seconds(giveUpAfter)))
    }

    private static func webhookEndpoint(_ reader: inout ConfigurationReader, index: Int) throws(ConfigurationError) -> WebhookEndpoint {
        guard let text = try reader.optionalString("url") else {
            throw ConfigurationError(keyPath: reader.keyPath("url"), problem: "is required: the http:// or https:// URL events are POSTed to")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw ConfigurationError(keyPath: reader.keyPath("url"), problem: "\"\(text)\" is not an http:// or https:// URL with a host")
        }
        guard let secret = try reader.optionalString("secret"), !secret.isEmpty else {
            throw ConfigurationError(keyPath: reader.keyPath("secret"), problem: "is required: the key receivers check each delivery's signature with")
        }
        guard secret.utf8.count >= minimumSecretBytes else {
            throw ConfigurationError(
                keyPath: reader.keyPath("secret"),
                problem: "is \(secret.utf8.count) bytes; it must be at least \(minimumSecretBytes) (use 32 random bytes, e.g. `openssl rand -hex 32`)")
        }
        let name = try reader.string("name", default: "endpoint-\(index + 1)")
        guard !name.isEmpty else { throw ConfigurationError(keyPath: reader.keyPath("name"), problem: "must not be empty") }
        var events: Set<SessionActivity.Kind>?
        if let names = try reader.optionalStrings("events") {
            var kinds = Set<SessionActivity.Kind>()
            for (position, eventName) in names.enumerated() {
                guard let kind = SessionActivity.Kind(rawValue: eventName) else {
                    let known = SessionActivity.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ConfigurationError(keyPath: "\(reader.keyPath("events"))[\(position)]", problem: "\"\(eventName)\" is not one of \(known)")
                }
                kinds.insert(kind)
            }
            guard !kinds.isEmpty else {
                throw ConfigurationError(keyPath: reader.keyPath("events"), problem: "is empty; leave it out to receive every event")
            }
            events = kinds
        }
        try reader.finish()
        return WebhookEndpoint(name: name, url: url, secret: secret, events: events)
    }
}
