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
    case forceMuteStream(StreamReference)
    case forceMuteAll(ForceMuteAllParameters)
    case disableForceMute
    /// A moderator starts recording the session (the fields of `POST /v1/sessions/{id}/archives`).
    case startArchive(RESTBody.StartArchive)
    /// A moderator stops the session's archive.
    case stopArchive(ArchiveReference)
    case disconnect

    /// The `method` string of each request.
    public enum Method: String, Codable, CaseIterable, Sendable {
        case connect, reconnect, publish, unpublish, updateStream, subscribe, unsubscribe, updateSubscriber, signal
        case getStats, getPublisherStats, forceDisconnect, forceUnpublish, answerSubscriber, restartIce, disconnect
        case forceMuteStream, forceMuteAll, disableForceMute
        case startArchive, stopArchive
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
        case .forceMuteStream: .forceMuteStream
        case .forceMuteAll: .forceMuteAll
        case .disableForceMute: .disableForceMute
        case .startArchive: .startArchive
        case .stopArchive: .stopArchive
        case .disconnect: .disconnect
        }
    }
}
