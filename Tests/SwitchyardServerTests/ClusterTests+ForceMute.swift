import MediaTestSupport
import SignalingProtocol
import Testing

/// Force mute in a cluster (docs/protocol.md#force-mute).
extension ClusterTests {
    /// In a cluster, a subscriber past the session node's share is served by another node over a
    /// relay leg: its consumer there is paused before the moderator's answer too.
    @Test func aCascadedSubscriberStopsGettingTheAudioBeforeTheAnswerToo() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2) { $0.cluster?.subscribersBeforeCascading = 1 }
        let (origin, edge) = (cluster.nodes[0], cluster.nodes[1])
        let (moderator, _) = try await origin.connect(session: "cascade-mute", role: .moderator)
        let (publisher, _) = try await origin.connect(session: "cascade-mute", role: .publisher)
        let (near, _) = try await origin.connect(session: "cascade-mute", role: .subscriber)
        let (far, _) = try await origin.connect(session: "cascade-mute", role: .subscriber)
        let stream = try await ForceMuteTests.publishAndSubscribe(publisher, near)
        let farPeer = try TestPeer()
        guard case .subscribe(let farSubscribed) = try await far.call(
            .subscribe(SubscribeParameters(streamId: stream.stream.streamId, transport: farPeer.transportOffer)))
        else { return }
        let farAnswer = try #require(farSubscribed.transport)
        try farPeer.accept(farAnswer)
        #expect(edge.configuration.media.portRange.contains(farAnswer.local.port), "the far subscriber's media comes from the other node")
        let farAudioSSRC = try #require(farSubscribed.audio?.ssrc)
        // A key frame for the far subscriber's video to start from, then audio flows to both.
        try stream.publisherPeer.sendMedia(startingAt: 5, count: 1, keyFrameFirst: true)
        #expect(try await onOwnThread { farPeer.receiveRTP(count: 2) }.count == 2)
        #expect(try await onOwnThread { stream.viewerPeer.receiveRTP(count: 2) }.count == 2)

        _ = try await moderator.call(.forceMuteStream(StreamReference(streamId: stream.stream.streamId)))
        try stream.publisherPeer.sendAudioThenMarker(audioFrom: 6, count: 5, videoSequence: 6)
        let atFar = try await farPeer.audioBeforeMarker(audioSSRC: farAudioSSRC)
        let atNear = try await stream.viewerPeer.audioBeforeMarker(audioSSRC: stream.audioSSRC)
        #expect(atFar.marker && atFar.audio == 0)
        #expect(atNear.marker && atNear.audio == 0)

        _ = try await publisher.call(.updateStream(StreamUpdate(streamId: stream.stream.streamId, publishAudio: true)))
        try stream.publisherPeer.sendAudioThenMarker(audioFrom: 11, count: 5, videoSequence: 7)
        let unmutedAtFar = try await farPeer.audioBeforeMarker(audioSSRC: farAudioSSRC)
        #expect(unmutedAtFar.marker && unmutedAtFar.audio == 5)
        await cluster.stop()
    }
}
