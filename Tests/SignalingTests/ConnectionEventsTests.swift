import Foundation
import SignalingProtocol
import Synchronization
import Testing

@testable import Signaling

/// A connection's event log: numbered from 1, bounded in messages and bytes, and replayed after the
/// reply to a new socket, in order, from where the client says it stopped.
struct ConnectionEventsTests {
    private func signal(_ type: String, size: Int = 1) -> SessionEvent {
        .signal(SignalDelivery(from: "c_a", type: type, data: String(repeating: "x", count: size)))
    }

    /// What an outbox holds, decoded, with each event's `seq`.
    private func taken(_ outbox: ClientOutbox) async -> [(message: ServerMessage, sequence: UInt64?)] {
        guard let entries = await outbox.next() else { return [] }
        return entries.map { entry in
            let data = Data(entry.text.utf8)
            return ((try? JSONDecoder().decode(ServerMessage.self, from: data)) ?? .error(id: nil, SignalingError(.internalError, "")),
                ServerMessage.eventSequence(of: data))
        }
    }

    @Test func eventsAreNumberedAndSentToTheAttachedSocket() async {
        let socket = ClientOutbox()
        let events = ConnectionEvents(limits: ReconnectionSettings(), outbox: socket)
        events.send(signal("a"))
        events.send(signal("b"))
        let sent = await taken(socket)
        #expect(sent.map(\.sequence) == [1, 2])
        #expect(sent.map(\.message) == [.event(signal("a")), .event(signal("b"))])
    }

    @Test func aNewSocketGetsTheReplyThenWhatItMissedThenWhatComesNext() async throws {
        let first = ClientOutbox()
        let events = ConnectionEvents(limits: ReconnectionSettings(), outbox: first)
        events.send(signal("seen"))
        #expect(events.detach(first))
        events.send(signal("missed1"))
        events.send(signal("missed2"))
        try events.canResume(after: 1)
        let second = ClientOutbox()
        let reply = ServerMessage.reply(id: 7, .empty(.signal))
        #expect(events.attach(second, first: reply, after: 1) == nil)
        events.send(signal("next"))
        let sent = await taken(second)
        #expect(sent.map(\.message) == [reply, .event(signal("missed1")), .event(signal("missed2")), .event(signal("next"))])
        #expect(sent.map(\.sequence) == [nil, 2, 3, 4])
    }

    @Test func anUnloggedEventTakesNoNumberAndIsNeverReplayed() async throws {
        let first = ClientOutbox()
        let events = ConnectionEvents(limits: ReconnectionSettings(), outbox: first)
        let levels = SessionEvent.audioLevels(AudioLevels(levels: [StreamAudioLevel(streamId: "st_1", level: 0.5, speaking: true)]))
        let text = String(decoding: ServerMessage.event(levels).encoded(), as: UTF8.self)
        events.send(signal("a"))
        events.sendUnlogged(encodedEvent: text)
        events.send(signal("b"))
        let sent = await taken(first)
        #expect(sent.map(\.message) == [.event(signal("a")), .event(levels), .event(signal("b"))])
        #expect(sent.map(\.sequence) == [1, nil, 2])

        // Away, it is not kept: a returning socket gets only the numbered events it missed.
        #expect(events.detach(first))
        events.sendUnlogged(encodedEvent: text)
        events.send(signal("missed"))
        try events.canResume(after: 2)
        let second = ClientOutbox()
        let reply = ServerMessage.reply(id: 3, .empty(.signal))
        #expect(events.attach(second, first: reply, after: 2) == nil)
        #expect(await taken(second).map(\.message) == [reply, .event(signal("missed"))])
    }

    @Test func attachingWhileASocketIsOpenReturnsTheOneReplaced() {
        let first = ClientOutbox()
        let events = ConnectionEvents(limits: ReconnectionSettings(), outbox: first)
        let second = ClientOutbox()
        #expect(events.attach(second, first: .reply(id: 1, .empty(.signal)), after: 0)?.identity == first.identity)
        #expect(!events.detach(first), "the replaced socket's end must not detach its successor")
        #expect(events.detach(second))
    }

    @Test func whileASocketIsAttachedOnlyTheRecentEventsAreKept() throws {
        final class FakeClock: Sendable {
            let start = ContinuousClock.now
            let offset = Mutex(Duration.zero)
            var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
        }
        let clock = FakeClock()
        let socket = ClientOutbox()
        let events = ConnectionEvents(limits: ReconnectionSettings(retainedWhileConnected: .seconds(45)), outbox: socket, clock: { clock.now })
        events.send(signal("old"))
        clock.offset.withLock { $0 = .seconds(30) }
        events.send(signal("recent"))
        #expect(events.held.messages == 2)
        clock.offset.withLock { $0 = .seconds(50) }
        events.send(signal("now"))
        #expect(events.held.messages == 2, "the event older than 45 s went")
        #expect(throws: Never.self) { try events.canResume(after: 1) }
        #expect(throws: ConnectionEvents.ResumeFailure.eventsNoLongerKept(lastSeen: 0, firstKept: 2)) { try events.canResume(after: 0) }

        // Away, nothing is dropped for its age.
        #expect(events.detach(socket))
        clock.offset.withLock { $0 = .seconds(500) }
        events.send(signal("while away"))
        #expect(events.held.messages == 3)
    }

    @Test func theLogIsBoundedAndARequestForWhatFellOutIsRefused() {
        let events = ConnectionEvents(limits: ReconnectionSettings(replayMessages: 4, replayBytes: 1 << 20), outbox: ClientOutbox())
        for index in 0..<10 { events.send(signal("m\(index)")) }
        #expect(events.held.messages == 4)
        #expect(throws: ConnectionEvents.ResumeFailure.eventsNoLongerKept(lastSeen: 2, firstKept: 7)) { try events.canResume(after: 2) }
        #expect(throws: Never.self) { try events.canResume(after: 6) }
        #expect(throws: Never.self) { try events.canResume(after: 10) }
        #expect(throws: ConnectionEvents.ResumeFailure.unknownEvent(lastSeen: 11, lastSent: 10)) { try events.canResume(after: 11) }

        let bytes = ConnectionEvents(limits: ReconnectionSettings(replayMessages: 1000, replayBytes: 10_000), outbox: ClientOutbox())
        for index in 0..<10 { bytes.send(signal("b\(index)", size: 3000)) }
        #expect(bytes.held.messages <= 3)
        #expect(bytes.held.bytes <= 10_000)
    }
}
