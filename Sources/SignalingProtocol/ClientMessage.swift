import Foundation

/// One message from a client: `{"v": 1, "id": 7, "method": "publish", "params": {...}}`. The server
/// answers every message with a reply or an error carrying the same `id`.
public struct ClientMessage: Equatable, Sendable {
    public var version: Int
    public var id: Int
    public var request: ClientRequest

    public init(version: Int = SignalingProtocolVersion.current, id: Int, request: ClientRequest) {
        self.version = version
        self.id = id
        self.request = request
    }

    /// Why a message could not be decoded, with the `id` when the message had a readable one, so
    /// the error reply can still be matched to its request.
    public struct Rejection: Error, Equatable, Sendable {
        public var id: Int?
        public var error: SignalingError
    }

    private struct Envelope: Decodable {
        var v: Int
        var id: Int
        var method: String

        private enum CodingKeys: String, CodingKey {
            case v, id, method
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            v = try container.decodeInteger(Int.self, forKey: .v)
            id = try container.decodeInteger(Int.self, forKey: .id)
            method = try container.decode(String.self, forKey: .method)
        }
    }

    private struct IdentifierOnly: Decodable {
        var id: Int

        private enum CodingKeys: String, CodingKey {
            case id
        }

        init(from decoder: any Decoder) throws {
            id = try decoder.container(keyedBy: CodingKeys.self).decodeInteger(Int.self, forKey: .id)
        }
    }

    private struct ParametersOnly<Parameters: Decodable>: Decodable {
        var params: Parameters
    }

    private struct OptionalParameters<Parameters: Decodable>: Decodable {
        var params: Parameters?
    }

    /// Decodes one message, naming exactly what was wrong when it cannot.
    public static func decode(_ data: Data) -> Result<ClientMessage, Rejection> {
        // The whole text is checked first, as the documented order says.
        guard JSONText.isValid(data) else {
            return .failure(Rejection(id: nil, error: SignalingError(.malformedMessage, "not valid JSON")))
        }
        let inspection = JSONText.inspect(data)
        if let key = inspection.duplicateKey {
            return .failure(Rejection(id: nil, error: SignalingError(.malformedMessage, "key \"\(key)\" appears twice in one object")))
        }
        // Only an integer literal that fits is an id: JSONSerialization would read `true` as 1 and
        // round a number past Int64 to another integer, JSONDecoder drops the fraction of one past 2^53.
        let idIsInteger = inspection.integerKeys.contains("id")
        let decoder = JSONDecoder()
        let envelope: Envelope
        do {
            envelope = try decoder.decode(Envelope.self, from: data)
        } catch {
            let readableID = idIsInteger ? (try? decoder.decode(IdentifierOnly.self, from: data))?.id : nil
            return .failure(Rejection(id: readableID, error: SignalingError(.malformedMessage, describeDecodingError(error))))
        }
        guard idIsInteger else { return .failure(Rejection(id: nil, error: SignalingError(.malformedMessage, "id: expected an integer"))) }
        guard inspection.integerKeys.contains("v") else {
            return .failure(Rejection(id: envelope.id, error: SignalingError(.malformedMessage, "v: expected an integer")))
        }
        guard envelope.v == SignalingProtocolVersion.current else {
            return .failure(
                Rejection(
                    id: envelope.id,
                    error: SignalingError(
                        .unsupportedVersion,
                        "protocol version \(envelope.v) is not supported; this server speaks version \(SignalingProtocolVersion.current)"
                    )))
        }
        guard let method = ClientRequest.Method(rawValue: envelope.method) else {
            let known = ClientRequest.Method.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(
                Rejection(
                    id: envelope.id,
                    error: SignalingError(.unknownMethod, "unknown method \"\(envelope.method)\"; expected one of \(known)")))
        }
        do {
            let request = try decodeRequest(method, from: data, decoder: decoder)
            return .success(ClientMessage(version: envelope.v, id: envelope.id, request: request))
        } catch {
            return .failure(Rejection(id: envelope.id, error: SignalingError(.invalidParams, describeDecodingError(error))))
        }
    }

    private static func decodeRequest(_ method: ClientRequest.Method, from data: Data, decoder: JSONDecoder) throws -> ClientRequest {
        func params<Parameters: Decodable>(_: Parameters.Type) throws -> Parameters {
            try decoder.decode(ParametersOnly<Parameters>.self, from: data).params
        }
        switch method {
        case .connect: return .connect(try params(ConnectParameters.self))
        case .reconnect: return .reconnect(try params(ReconnectParameters.self))
        case .publish: return .publish(try params(PublishParameters.self))
        case .unpublish: return .unpublish(try params(StreamReference.self))
        case .updateStream: return .updateStream(try params(StreamUpdate.self))
        case .subscribe: return .subscribe(try params(SubscribeParameters.self))
        case .unsubscribe: return .unsubscribe(try params(SubscriberReference.self))
        case .updateSubscriber: return .updateSubscriber(try params(SubscriberUpdate.self))
        case .signal: return .signal(try params(SignalParameters.self))
        case .getStats: return .getStats(try params(SubscriberReference.self))
        case .getPublisherStats: return .getPublisherStats(try params(StreamReference.self))
        case .forceDisconnect: return .forceDisconnect(try params(ConnectionReference.self))
        case .forceUnpublish: return .forceUnpublish(try params(StreamReference.self))
        case .answerSubscriber: return .answerSubscriber(try params(SubscriberAnswer.self))
        case .restartIce: return .restartIce(try params(ICERestartParameters.self))
        case .forceMuteStream: return .forceMuteStream(try params(StreamReference.self))
        case .forceMuteAll: return .forceMuteAll(try decoder.decode(OptionalParameters<ForceMuteAllParameters>.self, from: data).params ?? ForceMuteAllParameters())
        case .disableForceMute:
            _ = try decoder.decode(OptionalParameters<NoParameters>.self, from: data)
            return .disableForceMute
        case .startArchive:
            return .startArchive(try decoder.decode(OptionalParameters<RESTBody.StartArchive>.self, from: data).params ?? RESTBody.StartArchive())
        case .stopArchive: return .stopArchive(try params(ArchiveReference.self))
        case .disconnect:
            _ = try decoder.decode(OptionalParameters<NoParameters>.self, from: data)
            return .disconnect
        }
    }

    /// The JSON text of this message.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try! encoder.encode(self)
    }
}

extension ClientMessage: Encodable {
    private enum CodingKeys: String, CodingKey {
        case v, id, method, params
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .v)
        try container.encode(id, forKey: .id)
        try container.encode(request.method, forKey: .method)
        switch request {
        case .connect(let parameters): try container.encode(parameters, forKey: .params)
        case .reconnect(let parameters): try container.encode(parameters, forKey: .params)
        case .publish(let parameters): try container.encode(parameters, forKey: .params)
        case .unpublish(let parameters), .forceUnpublish(let parameters), .getPublisherStats(let parameters), .forceMuteStream(let parameters):
            try container.encode(parameters, forKey: .params)
        case .updateStream(let parameters): try container.encode(parameters, forKey: .params)
        case .subscribe(let parameters): try container.encode(parameters, forKey: .params)
        case .unsubscribe(let parameters), .getStats(let parameters): try container.encode(parameters, forKey: .params)
        case .updateSubscriber(let parameters): try container.encode(parameters, forKey: .params)
        case .signal(let parameters): try container.encode(parameters, forKey: .params)
        case .forceDisconnect(let parameters): try container.encode(parameters, forKey: .params)
        case .answerSubscriber(let parameters): try container.encode(parameters, forKey: .params)
        case .restartIce(let parameters): try container.encode(parameters, forKey: .params)
        case .forceMuteAll(let parameters): try container.encode(parameters, forKey: .params)
        case .startArchive(let parameters): try container.encode(parameters, forKey: .params)
        case .stopArchive(let parameters): try container.encode(parameters, forKey: .params)
        case .disconnect, .disableForceMute: try container.encode(NoParameters(), forKey: .params)
        }
    }
}

/// A one-line account of a decoding failure that names the field, for error replies and REST errors:
/// `<path>: <problem>`, the path starting at `root` when given (`body` for a REST body; a WebSocket
/// message's own keys, `params` among them, need none).
public func describeDecodingError(_ error: any Error, under root: String? = nil) -> String {
    guard let error = error as? DecodingError else { return root.map { "\($0): \(error)" } ?? "\(error)" }
    func path(_ codingPath: [any CodingKey]) -> String {
        let joined = (root ?? "") + codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
    }
    switch error {
    case .dataCorrupted(let context):
        let location = path(context.codingPath)
        // At the root, nothing but the JSON itself can be corrupt.
        let problem = context.codingPath.isEmpty ? "not valid JSON" : context.debugDescription
        return location.isEmpty ? problem : "\(location): \(problem)"
    case .keyNotFound(let key, let context):
        return "\(path(context.codingPath + [key])): required field is missing"
    case .typeMismatch(let type, let context):
        return "\(path(context.codingPath)): expected \(jsonName(of: type))"
    case .valueNotFound(let type, let context):
        return "\(path(context.codingPath)): expected \(jsonName(of: type)), found null"
    @unknown default:
        return "\(error)"
    }
}

private func jsonName(of type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Bool.Type: "a boolean"
    case is Int.Type, is Int64.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type: "an integer"
    case is Double.Type: "a number"
    default: "an object (\(type))"
    }
}
