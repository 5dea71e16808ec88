import Foundation
import SignalingProtocol
import Testing

@Suite struct ServerMessageTests {
    private let connection = ConnectionInfo(connectionId: "c_1", creationTime: 1_700_000_000_000, data: "name=Ann")

    private func roundTrip(_ message: ServerMessage) throws -> ServerMessage {
        try JSONDecoder().decode(ServerMessage.self, from: message.encoded())
    }

    @Test func repliesCarryTheirMethodAndRoundTrip() throws {
        let result = ConnectResult(
            connection: connection, role: .moderator, session: SessionSnapshot(sessionId: "s", connections: [connection], streams: []))
        let message = ServerMessage.reply(id: 1, .connect(result))
        #expect(try roundTrip(message) == message)
        let json = try JSONSerialization.jsonObject(with: message.encoded()) as! [String: Any]
        #expect(json["method"] as? String == "connect")
        #expect(json["v"] as? Int == 1)
        #expect(try roundTrip(.reply(id: 2, .empty(.signal))) == .reply(id: 2, .empty(.signal)))
    }

    /// An event encoded once and given each connection's `seq` is, byte for byte, the event encoded
    /// with that `seq`, whatever its data holds (quotes, a `"v":` inside a string).
    @Test func anEventEncodedOnceTakesEachSequenceAsIfEncodedWithIt() throws {
        let events: [SessionEvent] = [
            .connectionCreated(ConnectionEvent(connection: connection)),
            .signal(SignalDelivery(from: "c_1", type: "chat", data: #"{"v":1} "seq":2 \ end"#)),
            .connectionCountChanged(ConnectionCount(connectionCount: 15_000)),
        ]
        for event in events {
            let shared = EncodedEvent(event)
            for sequence: UInt64 in [1, 42, UInt64.max] {
                let text = shared.text(sequence: sequence)
                #expect(text == String(decoding: ServerMessage.event(event).encoded(eventSequence: sequence), as: UTF8.self))
                #expect(try JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8)) == .event(event))
                #expect(ServerMessage.eventSequence(of: Data(text.utf8)) == sequence)
            }
        }
    }

    @Test func aReconnectReplyCarriesTheNewSecretAndAnEventItsSequence() throws {
        var reconnecting = connection
        reconnecting.status = .reconnecting
        let result = ConnectResult(
            connection: connection, role: .publisher, session: SessionSnapshot(sessionId: "s", connections: [reconnecting], streams: []),
            reconnection: ReconnectionGrant(secret: "rs_x", graceSeconds: 20))
        #expect(try roundTrip(.reply(id: 4, .reconnect(result))) == .reply(id: 4, .reconnect(result)))
        let event = ServerMessage.event(.signal(SignalDelivery(from: "c_1", type: "t", data: "d")))
        let numbered = event.encoded(eventSequence: 41)
        #expect(ServerMessage.eventSequence(of: numbered) == 41)
        #expect(try JSONDecoder().decode(ServerMessage.self, from: numbered) == event)
        #expect(ServerMessage.eventSequence(of: event.encoded()) == nil)
    }

    @Test func errorsRoundTripWithAndWithoutID() throws {
        let error = SignalingError(.forbidden, "role subscriber cannot publish")
        #expect(try roundTrip(.error(id: 3, error)) == .error(id: 3, error))
        #expect(try roundTrip(.error(id: nil, error)) == .error(id: nil, error))
    }

    @Test func eventsRoundTrip() throws {
        let stream = StreamInfo(
            streamId: "st_1", connection: connection, creationTime: 1, name: "cam", hasAudio: true, hasVideo: false,
            videoDimensions: VideoDimensions(width: 640, height: 360), videoType: .camera)
        let events: [SessionEvent] = [
            .connectionCreated(ConnectionEvent(connection: connection)),
            .connectionDestroyed(ConnectionEvent(connection: connection, reason: .networkDisconnected)),
            .streamCreated(StreamEvent(stream: stream)),
            .streamDestroyed(StreamEvent(stream: stream, reason: .forceUnpublished)),
            .streamPropertyChanged(StreamPropertyChange(stream: stream, changedProperty: .hasVideo, oldValue: .flag(true), newValue: .flag(false))),
            .streamPropertyChanged(
                StreamPropertyChange(
                    stream: stream, changedProperty: .videoDimensions, oldValue: .dimensions(nil),
                    newValue: .dimensions(VideoDimensions(width: 640, height: 360)))),
            .videoDisabled(SubscriberVideoChange(subscriberId: "sb", streamId: "st_1", reason: .publisherPropertyChanged)),
            .videoEnabled(SubscriberVideoChange(subscriberId: "sb", streamId: "st_1", reason: .subscriberPropertyChanged)),
            .signal(SignalDelivery(from: nil, type: "chat", data: "hi")),
            .sessionDisconnected(SessionDisconnection(reason: .serverShutdown, message: "bye")),
            .streamPropertyChanged(
                StreamPropertyChange(stream: stream, changedProperty: .hasAudio, oldValue: .flag(true), newValue: .flag(false), reason: .forceMuted)),
            .muteForced(MuteForced(streamId: "st_1")),
            .forceMuteChanged(ForceMuteState(active: true, excludedStreamIds: ["st_2"])),
            .forceMuteChanged(.inactive),
        ]
        for event in events {
            #expect(try roundTrip(.event(event)) == .event(event))
        }
    }

    /// The publisher's own changes carry no `reason`, as before force mute, so older clients read
    /// them as they did; a force mute says so. The force-mute state names its spared streams only
    /// while active.
    @Test func forceMuteFieldsAreLeftOutWhenTheyDoNotApply() throws {
        let stream = StreamInfo(
            streamId: "st_1", connection: connection, creationTime: 1, name: "", hasAudio: false, hasVideo: false, videoDimensions: nil,
            videoType: .camera)
        func data(_ event: SessionEvent) throws -> [String: Any] {
            let json = try JSONSerialization.jsonObject(with: ServerMessage.event(event).encoded()) as! [String: Any]
            return json["data"] as! [String: Any]
        }
        let own = StreamPropertyChange(stream: stream, changedProperty: .hasAudio, oldValue: .flag(true), newValue: .flag(false))
        #expect(try data(.streamPropertyChanged(own))["reason"] == nil)
        var forced = own
        forced.reason = .forceMuted
        #expect(try data(.streamPropertyChanged(forced))["reason"] as? String == "forceMuted")
        #expect(try data(.forceMuteChanged(.inactive)).keys.sorted() == ["active"])
        #expect(try data(.forceMuteChanged(ForceMuteState(active: true)))["excludedStreamIds"] as? [String] == [])
        let old = #"{"v":1,"event":"streamPropertyChanged","data":{"stream":{"streamId":"st_1","connection":{"connectionId":"c_1","creationTime":1700000000000,"data":"name=Ann","status":"connected"},"creationTime":1,"name":"","hasAudio":false,"hasVideo":false,"videoType":"camera"},"changedProperty":"hasAudio","oldValue":true,"newValue":false}}"#
        #expect(try JSONDecoder().decode(ServerMessage.self, from: Data(old.utf8)) == .event(.streamPropertyChanged(own)))
    }

    @Test func anotherVersionIsRefusedByTheClientSide() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ServerMessage.self, from: Data(#"{"v":2,"event":"signal","data":{"type":"","data":""}}"#.utf8))
        }
    }
}
