import Testing

@testable import SwitchyardClient

/// The userspace impairment layer: parsing, and what each setting does to packets, on a manual clock.
@Suite struct ImpairmentTests {
    static let millisecond: UInt64 = 1_000_000

    @Test func parsesEverySettingAndPrintsItBack() throws {
        let impairment = try NetworkImpairment(parsing: "loss=0.3, burst=4, delay=40ms, jitter=10ms, rate=300kbps, queue=100ms")
        #expect(impairment == NetworkImpairment(
            loss: 0.3, meanBurstPackets: 4, delayMilliseconds: 40, jitterMilliseconds: 10, bandwidth: 300_000, queueMilliseconds: 100))
        #expect(try NetworkImpairment(parsing: impairment.description) == impairment)
        #expect(try NetworkImpairment(parsing: "clean") == .clean)
        #expect(try NetworkImpairment(parsing: "rate=2mbps").bandwidth == 2_000_000)
    }

    @Test(arguments: [
        ("loss=1.5", "impairment: loss 1.5 is outside 0...1"),
        ("speed=3", "unknown impairment setting \"speed\" (use loss, burst, delay, jitter, rate, queue)"),
        ("delay=fast", "impairment delay: \"fast\" is not a number with the expected unit"),
        ("loss", "impairment setting \"loss\" is not key=value"),
        ("delay=10ms,jitter=20ms", "impairment: jitter 20.0 ms exceeds delay 10.0 ms"),
        ("rate=lots", "impairment rate: \"lots\" is not a number with the expected unit"),
    ])
    func refusesBadImpairmentsNamingThePart(text: String, message: String) {
        #expect(throws: ImpairmentParseError.self) { try NetworkImpairment(parsing: text) }
        do {
            _ = try NetworkImpairment(parsing: text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func schedulesParseInOrderAndAnswerByTime() throws {
        let schedule = try ImpairmentSchedule(parsing: "3s:loss=0.3;11s:clean")
        #expect(schedule.impairment(atSeconds: 1) == .clean)
        #expect(schedule.impairment(atSeconds: 3).loss == 0.3)
        #expect(schedule.impairment(atSeconds: 10.9).loss == 0.3)
        #expect(schedule.impairment(atSeconds: 11) == .clean)
        #expect(schedule.firstDegradation?.start == 3)
        #expect(schedule.firstDegradation?.end == 11)
        #expect(schedule.description == "3s:loss=0.3;11s:clean")
        #expect(throws: ImpairmentParseError.malformedStep("3:loss=0.3")) { try ImpairmentSchedule(parsing: "3:loss=0.3") }
        #expect(throws: ImpairmentParseError.stepsOutOfOrder("2s:clean")) { try ImpairmentSchedule(parsing: "5s:loss=0.1;2s:clean") }
    }

    /// A link that comes and goes: each impaired spell from its first impaired step (consecutive
    /// impaired steps are one spell) to the next clean step, the last one open when nothing follows.
    @Test func everyImpairedSpellIsFoundInOrder() throws {
        let schedule = try ImpairmentSchedule(parsing: "0s:clean;5s:loss=0.3;20s:rate=300kbps;35s:clean;65s:loss=0.3;95s:clean;125s:loss=0.1")
        let spells = schedule.degradations
        #expect(spells.map(\.start) == [5, 65, 125])
        #expect(spells.map(\.end) == [35, 95, nil])
        #expect(schedule.firstDegradation?.start == 5 && schedule.firstDegradation?.end == 35)
        #expect(ImpairmentSchedule.clean.degradations.isEmpty)
    }

    @Test func randomLossMatchesItsRateAndRepeatsForASeed() {
        func losses(seed: UInt64) -> [Bool] {
            var path = ImpairedPath(impairment: NetworkImpairment(loss: 0.3), seed: seed)
            return (0..<100_000).map { path.deliveryTime(length: 1000, now: UInt64($0) * Self.millisecond) == nil }
        }
        let first = losses(seed: 7)
        var counted = ImpairedPath(impairment: NetworkImpairment(loss: 0.3), seed: 7)
        for index in 0..<100_000 { _ = counted.deliveryTime(length: 1000, now: UInt64(index) * Self.millisecond) }
        #expect(counted.lostCount == UInt64(first.filter { $0 }.count))
        let share = Double(first.filter { $0 }.count) / Double(first.count)
        #expect(abs(share - 0.3) < 0.01)
        #expect(losses(seed: 7) == first)
        #expect(losses(seed: 8) != first)
    }

    @Test func burstLossKeepsTheRateAndLosesPacketsInRuns() {
        var path = ImpairedPath(impairment: NetworkImpairment(loss: 0.1, meanBurstPackets: 5), seed: 3)
        var lost = 0
        var runs = 0
        var previousLost = false
        for index in 0..<200_000 {
            let isLost = path.deliveryTime(length: 1000, now: UInt64(index)) == nil
            if isLost { lost += 1 }
            if isLost && !previousLost { runs += 1 }
            previousLost = isLost
        }
        #expect(abs(Double(lost) / 200_000 - 0.1) < 0.01)
        #expect(abs(Double(lost) / Double(runs) - 5) < 0.5)
    }

    @Test func aBandwidthCapSerialisesPacketsAndDropsWhenTheQueueIsFull() {
        // 1 Mbit/s: a 1250-byte packet takes 10 ms; the queue holds 45 ms of traffic.
        var path = ImpairedPath(impairment: NetworkImpairment(bandwidth: 1_000_000, queueMilliseconds: 45), seed: 1)
        let deliveries = (0..<8).map { _ in path.deliveryTime(length: 1250, now: 0) }
        // Five packets wait 0, 10, 20, 30 and 40 ms; the sixth would wait 50 ms and is dropped.
        let expected: [UInt64?] = [10, 20, 30, 40, 50].map { $0 * Self.millisecond }
        #expect(Array(deliveries.prefix(5)) == expected)
        #expect(Array(deliveries.suffix(3)) == [nil, nil, nil])
        #expect(path.queueDropCount == 3)
        // Once the queue has drained, a packet goes straight through.
        #expect(path.deliveryTime(length: 1250, now: 100 * Self.millisecond) == 110 * Self.millisecond)
    }

    @Test func delayAndJitterStayInBoundsAndNeverReorder() throws {
        var path = ImpairedPath(impairment: NetworkImpairment(delayMilliseconds: 40, jitterMilliseconds: 10), seed: 5)
        var last: UInt64 = 0
        for index in 0..<10_000 {
            let sent = UInt64(index) * Self.millisecond
            let delivery = path.deliveryTime(length: 200, now: sent)
            let arrival = try #require(delivery)
            #expect(arrival >= last)
            #expect(arrival - sent >= 30 * Self.millisecond || arrival == last)
            #expect(arrival - sent <= 50 * Self.millisecond)
            last = arrival
        }
    }

    @Test func theDelayLineReleasesPacketsInOrderWhenDue() {
        var line = DelayLine(capacity: 2)
        defer { line.release() }
        let accepted = [1, 2, 3].map { value in
            [UInt8](repeating: UInt8(value), count: 4).withUnsafeBytes { line.enqueue($0, dueAt: UInt64(value) * 10) }
        }
        #expect(accepted == [true, true, false])
        #expect(line.count == 2)
        var released: [UInt8] = []
        line.drain(now: 15) { buffer, _ in released.append(buffer[0]) }
        #expect(released == [1])
        line.drain(now: 100) { buffer, length in released.append(buffer[length - 1]) }
        #expect(released == [1, 2])
        #expect(line.count == 0)
    }
}
