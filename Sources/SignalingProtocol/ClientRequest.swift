/// Everything a client can ask of the server, one case per `method`.
public enum ClientRequest: Equatable, Sendable {
    case connect(ConnectParameters)
    case reconnect(ReconnectParameters)
    case publish(PublishParameters)
    case unpublish(StreamReference)
    case updateStream(StreamUpdate)
    case subscribe(SubscribeParameters)
    case unsubscribe(SubscriberReference)
    case updateSubscriber(SubscriberUpdate)
    case signal(SignalParameters)
    case getStats(SubscriberReference)
    case getPublisherStats(StreamReference)
    case forceDisconnect(ConnectionReference)
    case forceUnpublish(StreamReference)
    case answerSubscriber(SubscriberAnswer)
    case restartIce(ICERestartParameters)
    case disconnect

    /// The `method` string of each request.
    public enum Method: String, Codable, CaseIterable, Sendable {
        case connect, reconnect, publish, unpublish, updateStream, subscribe, unsubscribe, updateSubscriber, signal
        case getStats, getPublisherStats, forceDisconnect, forceUnpublish, answerSubscriber, restartIce, disconnect
    }

    public var method: Method {
        switch self {
        case .connect: .connect
        case .reconnect: .reconnect
        case .publish: .publish
        case .unpublish: .unpublish
        case .updateStream: .updateStream
        case .subscribe: .subscribe
        case .unsubscribe: .unsubscribe
        case .updateSubscriber: .updateSubscriber
        case .signal: .signal
        case .getStats: .getStats
        case .getPublisherStats: .getPublisherStats
        case .forceDisconnect: .forceDisconnect
        case .forceUnpublish: .forceUnpublish
        case .answerSubscriber: .answerSubscriber
        case .restartIce: .restartIce
        case .disconnect: .disconnect
        }
    }
}
