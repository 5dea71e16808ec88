import Foundation

/// The result of a successful request, by the request's method.
public enum RequestResult: Equatable, Sendable {
    case connect(ConnectResult)
    case reconnect(ConnectResult)
    case publish(PublishResult)
    case subscribe(SubscribeResult)
    case getStats(SubscriberStatistics)
    case getPublisherStats(PublisherStatistics)
    case restartIce(ICERestartResult)
    case startArchive(ArchiveInfo)
    case stopArchive(ArchiveInfo)
    /// Every other method: success with nothing to return.
    case empty(ClientRequest.Method)

    public var method: ClientRequest.Method {
        switch self {
        case .connect: .connect
        case .reconnect: .reconnect
        case .publish: .publish
        case .subscribe: .subscribe
        case .getStats: .getStats
        case .getPublisherStats: .getPublisherStats
        case .restartIce: .restartIce
        case .startArchive: .startArchive
        case .stopArchive: .stopArchive
        case .empty(let method): method
        }
    }
}

/// One message from the server:
/// - a reply `{"v": 1, "id": 7, "method": "publish", "result": {...}}`,
/// - an error `{"v": 1, "id": 7, "error": {"code": "forbidden", "message": "..."}}` (`id` is null when
///   the request had no readable id),
/// - or an event `{"v": 1, "event": "streamCreated", "data": {...}}`.
public enum ServerMessage: Equatable, Sendable {
    case reply(id: Int, RequestResult)
    case error(id: Int?, SignalingError)
    case event(SessionEvent)
}

extension ServerMessage: Codable {
    private enum CodingKeys: String, CodingKey {
        case v, id, method, result, error, event, data, seq
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(SignalingProtocolVersion.current, forKey: .v)
        switch self {
        case .reply(let id, let result):
            try container.encode(id, forKey: .id)
            try container.encode(result.method, forKey: .method)
            switch result {
            case .connect(let value), .reconnect(let value): try container.encode(value, forKey: .result)
            case .publish(let value): try container.encode(value, forKey: .result)
            case .subscribe(let value): try container.encode(value, forKey: .result)
            case .getStats(let value): try container.encode(value, forKey: .result)
            case .getPublisherStats(let value): try container.encode(value, forKey: .result)
            case .restartIce(let value): try container.encode(value, forKey: .result)
            case .startArchive(let value), .stopArchive(let value): try container.encode(value, forKey: .result)
            case .empty: try container.encode(EmptyResult(), forKey: .result)
            }
        case .error(let id, let error):
            try container.encode(id, forKey: .id)
            try container.encode(error, forKey: .error)
        case .event(let event):
            try container.encode(event.name, forKey: .event)
            if let sequence = encoder.userInfo[Self.eventSequenceKey] as? UInt64 { try container.encode(sequence, forKey: .seq) }
            switch event {
            case .connectionCreated(let value), .connectionDestroyed(let value): try container.encode(value, forKey: .data)
            case .streamCreated(let value), .streamDestroyed(let value): try container.encode(value, forKey: .data)
            case .streamPropertyChanged(let value): try container.encode(value, forKey: .data)
            case .videoLayerChanged(let value): try container.encode(value, forKey: .data)
            case .videoDisabled(let value), .videoEnabled(let value), .videoDisableWarning(let value), .videoDisableWarningLifted(let value):
                try container.encode(value, forKey: .data)
            case .publisherVideoDisableWarning(let value), .publisherVideoDisableWarningLifted(let value), .publisherVideoDisabled(let value),
                .publisherVideoEnabled(let value):
                try container.encode(value, forKey: .data)
            case .signal(let value): try container.encode(value, forKey: .data)
            case .subscriberDestroyed(let value): try container.encode(value, forKey: .data)
            case .sessionDisconnected(let value): try container.encode(value, forKey: .data)
            case .muteForced(let value): try container.encode(value, forKey: .data)
            case .forceMuteChanged(let value): try container.encode(value, forKey: .data)
            case .activeSpeakerChanged(let value): try container.encode(value, forKey: .data)
            case .audioLevels(let value): try container.encode(value, forKey: .data)
            case .connectionCountChanged(let value): try container.encode(value, forKey: .data)
            case .archiveStarted(let value), .archiveStopped(let value): try container.encode(value, forKey: .data)
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .v)
        guard version == SignalingProtocolVersion.current else {
            throw DecodingError.dataCorruptedError(
                forKey: .v, in: container, debugDescription: "protocol version \(version) is not supported")
        }
        if let name = try container.decodeIfPresent(SessionEvent.Name.self, forKey: .event) {
            self = .event(try Self.decodeEvent(name, from: container))
        } else if let error = try container.decodeIfPresent(SignalingError.self, forKey: .error) {
            self = .error(id: try container.decodeIfPresent(Int.self, forKey: .id), error)
        } else {
            let id = try container.decode(Int.self, forKey: .id)
            let method = try container.decode(ClientRequest.Method.self, forKey: .method)
            let result: RequestResult
            switch method {
            case .connect: result = .connect(try container.decode(ConnectResult.self, forKey: .result))
            case .reconnect: result = .reconnect(try container.decode(ConnectResult.self, forKey: .result))
            case .publish: result = .publish(try container.decode(PublishResult.self, forKey: .result))
            case .subscribe: result = .subscribe(try container.decode(SubscribeResult.self, forKey: .result))
            case .getStats: result = .getStats(try container.decode(SubscriberStatistics.self, forKey: .result))
            case .getPublisherStats: result = .getPublisherStats(try container.decode(PublisherStatistics.self, forKey: .result))
            case .restartIce: result = .restartIce(try container.decode(ICERestartResult.self, forKey: .result))
            case .startArchive: result = .startArchive(try container.decode(ArchiveInfo.self, forKey: .result))
            case .stopArchive: result = .stopArchive(try container.decode(ArchiveInfo.self, forKey: .result))
            default: result = .empty(method)
            }
            self = .reply(id: id, result)
        }
    }

    private static func decodeEvent(_ name: SessionEvent.Name, from container: KeyedDecodingContainer<CodingKeys>) throws -> SessionEvent {
        func data<Value: Decodable>(_: Value.Type) throws -> Value { try container.decode(Value.self, forKey: .data) }
        switch name {
        case .connectionCreated: return .connectionCreated(try data(ConnectionEvent.self))
        case .connectionDestroyed: return .connectionDestroyed(try data(ConnectionEvent.self))
        case .streamCreated: return .streamCreated(try data(StreamEvent.self))
        case .streamDestroyed: return .streamDestroyed(try data(StreamEvent.self))
        case .streamPropertyChanged: return .streamPropertyChanged(try data(StreamPropertyChange.self))
        case .videoDisabled: return .videoDisabled(try data(SubscriberVideoChange.self))
        case .videoEnabled: return .videoEnabled(try data(SubscriberVideoChange.self))
        case .videoDisableWarning: return .videoDisableWarning(try data(SubscriberVideoChange.self))
        case .videoDisableWarningLifted: return .videoDisableWarningLifted(try data(SubscriberVideoChange.self))
        case .videoLayerChanged: return .videoLayerChanged(try data(SubscriberLayerChange.self))
        case .publisherVideoDisableWarning: return .publisherVideoDisableWarning(try data(PublisherVideoChange.self))
        case .publisherVideoDisableWarningLifted: return .publisherVideoDisableWarningLifted(try data(PublisherVideoChange.self))
        case .publisherVideoDisabled: return .publisherVideoDisabled(try data(PublisherVideoChange.self))
        case .publisherVideoEnabled: return .publisherVideoEnabled(try data(PublisherVideoChange.self))
        case .signal: return .signal(try data(SignalDelivery.self))
        case .subscriberDestroyed: return .subscriberDestroyed(try data(SubscriberEnded.self))
        case .sessionDisconnected: return .sessionDisconnected(try data(SessionDisconnection.self))
        case .muteForced: return .muteForced(try data(MuteForced.self))
        case .forceMuteChanged: return .forceMuteChanged(try data(ForceMuteState.self))
        case .activeSpeakerChanged: return .activeSpeakerChanged(try data(ActiveSpeakerChange.self))
        case .audioLevels: return .audioLevels(try data(AudioLevels.self))
        case .connectionCountChanged: return .connectionCountChanged(try data(ConnectionCount.self))
        case .archiveStarted: return .archiveStarted(try data(ArchiveEvent.self))
        case .archiveStopped: return .archiveStopped(try data(ArchiveEvent.self))
        }
    }

    private static let eventSequenceKey = CodingUserInfoKey(rawValue: "switchyard.eventSequence")!

    /// The `seq` of an event's JSON text, nil for a reply, an error, or an event sent without one.
    public static func eventSequence(of text: Data) -> UInt64? {
        struct Sequenced: Decodable { var seq: UInt64? }
        return (try? JSONDecoder().decode(Sequenced.self, from: text))?.seq
    }

    /// The JSON text of this message; an event carries `eventSequence` as its `seq` when given.
    public func encoded(eventSequence: UInt64? = nil) -> Data {
        let encoder = JSONEncoder()
        if let eventSequence { encoder.userInfo[Self.eventSequenceKey] = eventSequence }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Statistics are Doubles; a NaN must not take the server down.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try! encoder.encode(self)
    }
}
