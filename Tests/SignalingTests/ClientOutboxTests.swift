import SignalingProtocol
import Synchronization
import Testing

@testable import Signaling

/// The outbox's bounds: a client that falls behind by more messages or bytes than allowed is cut
/// off once, and everything held for it is dropped at that moment.
struct ClientOutboxTests {
    private final class OverflowCount: Sendable {
        let value = Mutex(0)
    }

    private func signal(_ size: Int) -> SessionEvent {
        .signal(SignalDelivery(from: "c_a", type: "t", data: String(repeating: "x", count: size)))
    }

    @Test func messagesComeOutInOrderAndAreCountedUntilWritten() async throws {
        let outbox = ClientOutbox(limits: .init(messages: 8, bytes: 1 << 20))
        outbox.send(signal(1))
        outbox.send(signal(2))
        let first = try #require(await outbox.next())
        #expect(first.count == 2)
        #expect(first[0].text.contains(#""data":"x""#) && first[1].text.contains(#""data":"xx""#))
        #expect(outbox.held.messages == 2, "taken is not yet written")
        outbox.wrote(first[0])
        #expect(outbox.held.messages == 1)
        outbox.wrote(first[1])
        #expect(outbox.held.messages == 0 && outbox.held.bytes == 0)
        outbox.close(.clientDisconnected, message: "bye")
        let last = try #require(await outbox.next())
        #expect(last.map(\.lastWord) == [.clientDisconnected])
        #expect(await outbox.next() == nil)
    }

    /// A new socket's outbox holds even a closing word until released; the writer then gets it whole.
    @Test func aHeldOutboxGivesTheWriterNothingUntilReleased() async throws {
        let outbox = ClientOutbox(holdsUntilReleased: true)
        outbox.close(.nodeDraining, message: "draining")
        let taken = Mutex(false)
        let writer = Task {
            let entries = await outbox.next()
            taken.withLock { $0 = true }
            return entries
        }
        for _ in 0..<50 { await Task.yield() }
        #expect(!taken.withLock { $0 }, "taken before release")
        outbox.release()
        let entries = try #require(await writer.value)
        #expect(entries.map(\.lastWord) == [.nodeDraining])
        #expect(await outbox.next() == nil)
    }

    @Test func oneMessageTooManyCutsTheClientOffAndDropsEverything() async {
        let overflows = OverflowCount()
        let outbox = ClientOutbox(limits: .init(messages: 4, bytes: 1 << 20)) { overflows.value.withLock { $0 += 1 } }
        for _ in 0..<4 { outbox.send(signal(10)) }
        #expect(!outbox.overflowed)
        outbox.send(signal(10))
        outbox.send(signal(10))
        #expect(outbox.overflowed)
        #expect(overflows.value.withLock { $0 } == 1)
        #expect(outbox.held.messages == 0 && outbox.held.bytes == 0)
        #expect(await outbox.next() == nil, "nothing is written after an overflow")
    }

    @Test func bytesOverTheLimitCutTheClientOffEvenWithFewMessages() async {
        let overflows = OverflowCount()
        let outbox = ClientOutbox(limits: .init(messages: 4096, bytes: 20_000)) { overflows.value.withLock { $0 += 1 } }
        outbox.send(signal(8192))
        outbox.send(signal(8192))
        #expect(!outbox.overflowed)
        outbox.send(signal(8192))
        #expect(outbox.overflowed)
        #expect(overflows.value.withLock { $0 } == 1)
        #expect(outbox.held.messages == 0 && outbox.held.bytes == 0)
    }

    @Test func messagesTakenButNotWrittenStillCount() async throws {
        let outbox = ClientOutbox(limits: .init(messages: 2, bytes: 1 << 20))
        outbox.send(signal(1))
        outbox.send(signal(1))
        _ = try #require(await outbox.next())
        outbox.send(signal(1))
        #expect(outbox.overflowed, "a writer stuck on taken messages does not make room")
    }

    @Test func aWaitingWriterWakesForTheNextMessageAndForTheEnd() async throws {
        let outbox = ClientOutbox()
        async let taken = outbox.next()
        try await Task.sleep(for: .milliseconds(20))
        outbox.send(signal(3))
        #expect(try #require(await taken).count == 1)
        async let ended = outbox.next()
        try await Task.sleep(for: .milliseconds(20))
        outbox.finish()
        #expect(await ended == nil)
    }

    /// A writer that is not running is woken once, and only when there is something to take: a
    /// held outbox's messages wake it at their release, and its end wakes it too.
    @Test func aWriterIsWokenOnceWhenThereIsSomethingToTake() async throws {
        let wakes = OverflowCount()
        let outbox = ClientOutbox(holdsUntilReleased: true)
        outbox.whenTakeable { wakes.value.withLock { $0 += 1 } }
        #expect(outbox.take() == .none)
        outbox.send(signal(1))
        #expect(wakes.value.withLock { $0 } == 0, "held until the release")
        outbox.release()
        #expect(wakes.value.withLock { $0 } == 1)
        outbox.send(signal(1))
        #expect(wakes.value.withLock { $0 } == 1, "a wake is for one call only")
        #expect(try #require(outbox.take())?.count == 2)
        #expect(outbox.take() == .none)

        outbox.whenTakeable { wakes.value.withLock { $0 += 1 } }
        outbox.finish()
        #expect(wakes.value.withLock { $0 } == 2, "the end wakes it")
        #expect(outbox.take() == .some(nil))
        outbox.whenTakeable { wakes.value.withLock { $0 += 1 } }
        #expect(wakes.value.withLock { $0 } == 3, "something to take already: woken at once")
    }
}
