import Quality
import Testing

@Suite struct DominantSpeakerTests {
    typealias Script = SpeakerScript

    @Test func aTalkerTakesAFreeFloorWithin300Milliseconds() {
        var script = Script()
        script.run(["a": Script.speech(startingAt: 1000), "b": Script.noise()], for: 3000)
        let first = try! #require(script.changes.first)
        #expect(first.speaker == "a")
        #expect(first.milliseconds >= 1000 && first.milliseconds <= 1300, "took \(first.milliseconds - 1000) ms")
        #expect(script.changes.count == 1)
    }

    @Test func theNextTalkerTakesTheFloorWithin300MillisecondsOfStarting() {
        var script = Script()
        script.run(["a": Script.speech(startingAt: 0), "b": Script.noise()], for: 5000)
        script.run(["a": Script.silence, "b": Script.noise()], for: 1000)
        script.run(["a": Script.silence, "b": Script.speech(startingAt: 6000)], for: 3000)
        #expect(script.changes.map(\.speaker) == ["a", "b"])
        let taken = script.changes[1].milliseconds
        #expect(taken >= 6000 && taken <= 6300, "took \(taken - 6000) ms")
    }

    @Test func aCoughOrALaughOverTheSpeakerDoesNotTakeTheFloor() {
        var script = Script()
        let a = Script.speech(startingAt: 0)
        script.run(["a": a, "b": Script.noise()], for: 4000)
        // One second of loud laughing over a speaker who goes on talking.
        script.run(["a": a, "b": { _ in 20 }], for: 1000)
        script.run(["a": a, "b": Script.noise()], for: 4000)
        #expect(script.changes.map(\.speaker) == ["a"])
    }

    @Test func aClickShorterThanTheTakeoverTimeNeverTakesTheFloor() {
        var script = Script()
        script.run(["a": Script.speech(startingAt: 0), "b": Script.noise()], for: 3000)
        script.run(["a": Script.silence, "b": Script.noise()], for: 2000)
        // A 100 ms click while the floor is free.
        script.run(["a": Script.silence, "b": { _ in 10 }], for: 100)
        script.run(["a": Script.silence, "b": Script.noise()], for: 2000)
        #expect(script.changes.map(\.speaker) == ["a"])
    }

    @Test func noiseNeverTakesTheFloorFromASteadyTalkerEvenInItsPauses() {
        var script = Script()
        let voices: [String: Script.Voice] = [
            "talker": Script.speech(startingAt: 0, room: 90), "loudRoom": Script.noise(45), "quietRoom": Script.noise(85),
        ]
        script.run(voices, for: 60_000)
        #expect(script.changes.map(\.speaker) == ["talker"])
    }

    @Test func someoneWhoKeepsTalkingWhileTheSpeakerTrailsOffTakesTheFloor() {
        var script = Script()
        script.run(["a": Script.speech(startingAt: 0), "b": Script.noise()], for: 4000)
        // b starts while a still talks; a stops a second later.
        script.run(["a": Script.speech(startingAt: 0), "b": Script.speech(startingAt: 4000)], for: 1000)
        script.run(["a": Script.silence, "b": Script.speech(startingAt: 4000)], for: 2000)
        #expect(script.changes.map(\.speaker) == ["a", "b"])
        #expect(script.changes[1].milliseconds <= 5600)
    }

    @Test func aMutedStreamNeverTakesTheFloorAndAMutedSpeakerLosesIt() {
        var script = Script()
        script.muted = ["b"]
        script.run(["a": Script.silence, "b": Script.speech(startingAt: 0)], for: 3000)
        #expect(script.changes.isEmpty)
        script.muted = []
        script.run(["a": Script.silence, "b": Script.speech(startingAt: 0)], for: 1000)
        #expect(script.changes.map(\.speaker) == ["b"])
        script.muted = ["b"]
        script.run(["a": Script.silence, "b": Script.speech(startingAt: 0)], for: 100)
        #expect(script.changes.map(\.speaker) == ["b", nil])
    }

    @Test func theMeterTellsNoiseFromSpeechAndDecaysWithoutPackets() {
        var meter = AudioLevelMeter()
        let second: UInt64 = 1_000_000_000
        var now: UInt64 = 1
        for step in 0..<100 {
            meter.record(level: UInt8(60 + step % 5), now: now)
            now += 20_000_000
        }
        #expect(meter.shortActivity(now: now) < 0.05, "steady noise counted as speech")
        for step in 0..<50 {
            meter.record(level: UInt8(28 + step % 4), now: now)
            now += 20_000_000
        }
        #expect(meter.shortActivity(now: now) > 0.85)
        #expect(meter.amplitude(now: now) > 0.02 && meter.amplitude(now: now) < 0.05, "about -30 dBov: \(meter.amplitude(now: now))")
        #expect(meter.shortActivity(now: now + second) < 0.01, "no packets for a second still reads as speech")
        #expect(meter.longActivity(now: now + second) > 0.2, "the long average forgot at once")
        meter.silence()
        #expect(meter.shortActivity(now: now) == 0 && meter.speechLoudness(now: now) == 0 && meter.amplitude(now: now) == 0)
    }

    @Test func theLoudestAreForwardedWithTheDominantSpeakerAndKeepTheirPlace() {
        func activity(_ name: String, _ loudness: Double) -> SpeakerActivity<String> {
            SpeakerActivity(speaker: name, shortActivity: 0, longActivity: 0, speechLoudness: loudness)
        }
        let candidates = [activity("a", 80), activity("b", 70), activity("c", 60), activity("d", 50), activity("e", 0)]
        let two = LoudestSpeakers(count: 2, candidates: candidates, dominant: "d", previouslyForwarded: [])
        #expect(two.forwarded == ["a", "b", "d"])
        #expect(two.admissionLoudness == 70)
        // c is 2 dB louder than b now, but b is forwarded and keeps its place (3 dB bonus).
        let close = [activity("a", 80), activity("b", 70), activity("c", 72)]
        #expect(LoudestSpeakers(count: 2, candidates: close, dominant: nil, previouslyForwarded: ["a", "b"]).forwarded == ["a", "b"])
        #expect(LoudestSpeakers(count: 2, candidates: close, dominant: nil, previouslyForwarded: []).forwarded == ["a", "c"])
        // Fewer talkers than places: anyone who starts is let through at once.
        let few = LoudestSpeakers(count: 3, candidates: [activity("a", 80), activity("e", 0)], dominant: nil, previouslyForwarded: [])
        #expect(few.forwarded == ["a"] && few.admissionLoudness == 0)
    }
}
