import SignalingProtocol

/// What happens to a session, named after the reference platform's session delegate.
public enum SessionClientEvent: Equatable, Sendable {
    case connectionCreated(ConnectionInfo)
    case connectionDestroyed(ConnectionInfo, reason: ConnectionDestroyedReason?)
    case streamCreated(StreamInfo)
    case streamDestroyed(StreamInfo, reason: StreamDestroyedReason?)
    case streamPropertyChanged(StreamPropertyChange)
    /// A signal; `from` is the sending connection (nil when sent through the REST API).
    case signalReceived(type: String, data: String, from: String?)
    /// The WebSocket dropped; the client is taking its connection back (`sessionReconnecting`).
    case sessionDidBeginReconnecting
    /// Back in the same connection (`sessionReconnected`): same connection id, its streams and
    /// subscriptions kept. The events missed meanwhile arrive around this one, in order, none twice.
    case sessionDidReconnect(ConnectionInfo)
    /// In a cluster, back in the session on another node, as a new connection: the node was
    /// drained or lost. Publishers published again (`PublisherEvent.streamMoved`); subscriptions
    /// ended, and the others' streams come again as `streamCreated`, to subscribe to anew.
    case sessionDidMove(ConnectionInfo)
    /// The session ended: the server said why, or `reason` is nil when the network dropped it and
    /// reconnection failed or was off.
    case sessionDidDisconnect(reason: SessionDisconnectedReason?)
    /// A moderator or the app's backend muted one of this connection's streams (the publisher's
    /// `muteForced`); it stopped sending audio. Also for a stream muted as it was published, before
    /// `publish` returns.
    case muteForced(streamId: String)
    /// Force mute was turned on or off for the session (the session's `muteForced` with `active`).
    case forceMuteChanged(ForceMuteState)
    /// With speaker events asked for at connect: the stream the router hears as the dominant
    /// speaker (nil when nobody speaks any more).
    case activeSpeakerChanged(streamId: String?)
    /// With speaker events asked for at connect: the loudest streams' levels, loudest first.
    case audioLevels([StreamAudioLevel])
    /// Without connection events (docs/protocol.md, "Connection event suppression"): the
    /// session's number of connections, at most once a second and only when it changed.
    case connectionCountChanged(Int)
    /// The session began to be recorded: show it. (A client joining a session already recorded
    /// reads it from `Session.archive`, set from its connect reply.)
    case archiveStarted(ArchiveEvent)
    /// The recording ended.
    case archiveStopped(ArchiveEvent)
}

/// What happens to one subscriber, named after the reference platform's subscriber delegate.
public enum SubscriberEvent: Equatable, Sendable {
    case subscriberVideoDisabled(reason: VideoDisableReason)
    case subscriberVideoEnabled(reason: VideoDisableReason)
    case subscriberVideoDisableWarning
    case subscriberVideoDisableWarningLifted
    /// Of a scalable-video stream: the layer received changed, or the one the router moves to did.
    case subscriberVideoLayerChanged(SubscriberLayerChange)
    /// The subscription ended because its stream did, or the session did.
    case subscriberDidEnd
    /// No media for 2 s while some should arrive (this network, or the publisher's, broke); the
    /// subscription stays (`subscriberDisconnected`).
    case subscriberDidDisconnectFromStream
    /// Media arrives again (`subscriberReconnected`).
    case subscriberDidReconnectToStream
}

/// What happens to one publisher, named after the reference platform's publisher delegate.
public enum PublisherEvent: Equatable, Sendable {
    case publisherVideoDisableWarning
    case publisherVideoDisableWarningLifted
    case publisherVideoDisabled(reason: VideoDisableReason)
    case publisherVideoEnabled(reason: VideoDisableReason)
    /// The stream ended (unpublished, forced, or the session ended).
    case streamDestroyed(reason: StreamDestroyedReason?)
    /// The router's reports show nothing received for 3 s while this publisher sends; the stream
    /// stays (`publisherDisconnected`).
    case publisherDidDisconnect
    /// The router receives again (`publisherReconnected`).
    case publisherDidReconnect
    /// In a cluster, the session moved to another node (a drain, a lost node) and the stream was
    /// published there again: its new id and properties. Subscribers see it as a new stream.
    case streamMoved(StreamInfo)
    /// A moderator or the app's backend muted this stream's audio; the publisher stopped sending it.
    /// `setPublishAudio(true)` turns it on again.
    case muteForced
}
