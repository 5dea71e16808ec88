import COpus
import Testing

/// The Opus system library links and round-trips speech-band audio: what the Swift client will build on.
@Suite struct OpusLibraryTests {
    static let sampleRate: Int32 = 48_000
    static let frameSamples = 960

    @Test func encodesAndDecodesATone() throws {
        var error: Int32 = 0
        let encoder = try #require(opus_encoder_create(Self.sampleRate, 1, OPUS_APPLICATION_VOIP, &error))
        defer { opus_encoder_destroy(encoder) }
        #expect(error == OPUS_OK)
        #expect(switchyard_opus_set_bitrate(encoder, 32_000) == OPUS_OK)
        let decoder = try #require(opus_decoder_create(Self.sampleRate, 1, &error))
        defer { opus_decoder_destroy(decoder) }

        let frames = 50
        let tone = (0..<(frames * Self.frameSamples)).map { index in
            Int16(8_000 * sin(2 * Double.pi * 440 * Double(index) / Double(Self.sampleRate)))
        }
        var decoded: [Int16] = []
        var packet = [UInt8](repeating: 0, count: 1500)
        for frame in 0..<frames {
            let input = Array(tone[(frame * Self.frameSamples)..<((frame + 1) * Self.frameSamples)])
            let encodedLength = opus_encode(encoder, input, Int32(Self.frameSamples), &packet, Int32(packet.count))
            #expect(encodedLength > 2)
            var output = [Int16](repeating: 0, count: Self.frameSamples)
            let decodedSamples = opus_decode(decoder, packet, encodedLength, &output, Int32(Self.frameSamples), 0)
            #expect(decodedSamples == Int32(Self.frameSamples))
            decoded += output
        }
        // After the codec's start-up, the decoded tone has the input's energy and its 440 Hz pitch.
        let settled = Array(decoded[(10 * Self.frameSamples)...])
        let reference = Array(tone[(10 * Self.frameSamples)...])
        let energyRatio = energy(settled) / energy(reference)
        #expect(energyRatio > 0.5 && energyRatio < 2)
        let seconds = Double(settled.count) / Double(Self.sampleRate)
        let estimatedFrequency = Double(zeroCrossings(settled)) / 2 / seconds
        #expect(abs(estimatedFrequency - 440) < 20)
    }

    private func energy(_ samples: [Int16]) -> Double {
        samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count)
    }

    private func zeroCrossings(_ samples: [Int16]) -> Int {
        zip(samples, samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
    }
}

@inline(__always) private func sin(_ x: Double) -> Double {
    // Taylor series around the nearest multiple of 2π: accurate to well under one 16-bit step, and keeps
    // this test free of Foundation.
    var reduced = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if reduced > Double.pi { reduced -= 2 * Double.pi }
    if reduced < -Double.pi { reduced += 2 * Double.pi }
    var term = reduced
    var sum = reduced
    for n in 1..<12 {
        term *= -reduced * reduced / Double((2 * n) * (2 * n + 1))
        sum += term
    }
    return sum
}
