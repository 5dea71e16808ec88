import RTPWire
import Testing

@testable import SwitchyardClient

/// What a receiver plays from audio packets after gaps, with RFC 2198 redundancy and without: every
/// frame of a gap the redundancy covers comes back, in order, and only the rest is concealed.
@Suite struct AudioFrameRecoveryTests {
    /// One played item: a frame's first byte (each test frame is one byte naming itself), or nil for
    /// a concealed frame.
    private typealias Played = [UInt8?]

    /// A RED packet of frame `index` repeating `depth` earlier frames, each frame one byte `index`.
    private static func redundant(_ index: Int, depth: Int) -> [UInt8] {
        let earlier = (max(0, index - depth)..<index).map { UInt8($0) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let written = earlier.withUnsafeBytes { all in
            [UInt8(index)].withUnsafeBytes { primary in
                bytes.withUnsafeMutableBytes { destination in
                    try! RedundantAudioPayload.write(
                        primary: primary,
                        redundant: earlier.indices.map { (UnsafeRawBufferPointer(rebasing: all[$0..<($0 + 1)]), UInt32(960 * (index - Int(earlier[$0])))) },
                        payloadType: 111, into: destination)
                }
            }
        }
        return Array(bytes.prefix(written))
    }

    /// Feeds packets `indices` (frame index = sequence offset = timestamp / 960), with RED of
    /// `depth` earlier frames when `depth` > 0.
    private static func play(_ indices: [Int], depth: Int) -> (played: Played, recovery: AudioFrameRecovery) {
        var recovery = AudioFrameRecovery()
        var played: Played = []
        for index in indices {
            let payload = depth > 0 ? redundant(index, depth: depth) : [UInt8(truncatingIfNeeded: index)]
            payload.withUnsafeBytes { bytes in
                recovery.receive(
                    sequenceNumber: UInt16(truncatingIfNeeded: 65_530 + index), timestamp: UInt32(960 * index), payload: bytes, redundant: depth > 0
                ) { range in played.append(range.map { bytes[$0.lowerBound] }) }
            }
        }
        return (played, recovery)
    }

    @Test func withoutRedEveryLostFrameIsConcealed() {
        let (played, recovery) = Self.play([0, 1, 3, 6, 7], depth: 0)
        #expect(played == [0, 1, nil, 3, nil, nil, 6, 7])
        #expect(recovery.framesConcealed == 3)
        #expect(recovery.framesRecovered == 0)
    }

    @Test func twoFramesOfRedBringBackTheLastTwoOfEachGapAcrossTheSequenceWrap() {
        let (played, recovery) = Self.play([0, 1, 3, 6, 7, 11], depth: 2)
        #expect(played == [0, 1, 2, 3, 4, 5, 6, 7, nil, 9, 10, 11])
        #expect(recovery.framesRecovered == 5)
        #expect(recovery.framesConcealed == 1)
    }

    @Test func lateAndRepeatedPacketsPlayNothing() {
        let (played, _) = Self.play([0, 2, 1, 2, 3], depth: 1)
        #expect(played == [0, 1, 2, 3])
    }

    @Test func aMalformedRedPacketConcealsItsFrameAndWhatItsGapLost() {
        var recovery = AudioFrameRecovery()
        var played: Played = []
        for (sequence, payload) in [(UInt16(1), [UInt8(111), 0x01]), (3, [0xEF, 0x00]), (4, [UInt8(111), 0x04])] {
            payload.withUnsafeBytes { bytes in
                recovery.receive(sequenceNumber: sequence, timestamp: UInt32(sequence) * 960, payload: bytes, redundant: true) { range in
                    played.append(range.map { bytes[$0.upperBound - 1] })
                }
            }
        }
        #expect(played == [1, nil, nil, 4])
        #expect(recovery.malformedRedundantPackets == 1)
        #expect(recovery.framesConcealed == 2)
    }

    @Test func anOutageIsCountedWholeButConcealedOnlyUpToTheBound() {
        let (played, recovery) = Self.play([0, 500], depth: 0)
        #expect(recovery.framesConcealed == 499)
        #expect(played.count == 2 + AudioFrameRecovery.maximumConcealedPerGap)
    }
}
