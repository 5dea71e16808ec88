import Testing
import TestSupport

@testable import RTPWire

@Suite struct RTCPTransportFeedbackTests {
    typealias Result = RTCPTransportFeedback.PacketResult

    /// 41 packets from sequence number 100: 20 received 1 ms (4 ticks) apart, then a mixed group of
    /// seven that needs two-bit symbols, then fourteen that one-bit symbols can carry.
    static let goldenDeltas: [Int16?] =
        Array(repeating: 4, count: 20)
        + [nil, 1, 300, 255, -4, nil, 0]
        + [2, nil, 3, 4, nil, nil, 5, 6, 7, nil, nil, 8, 9, nil]

    let golden = hexBytes(
        """
        AF CD 00 0F   # V=2,P=1,FMT=15 -> 10 1 01111 = 0xAF; PT=205; 64 bytes -> length 15
        0A 0B 0C 0D   # SSRC of packet sender
        01 02 03 04   # SSRC of media source
        00 64 00 29   # base sequence number 100; packet status count 41
        FF FF FE 07   # reference time -2 (24-bit two's complement); fb pkt count 7
        20 14         # run length: T=0, S=01 (small), run 20 -> 0 01 0000000010100
        C6 61         # 2-bit vector: T=1,S=1, symbols 0 1 2 1 2 0 1 -> 11 00 01 10 01 10 00 01
        AC E6         # 1-bit vector: T=1,S=0, symbols 1 0 1 1 0 0 1 1 1 0 0 1 1 0 -> 10 10110011100110
        04 04         # deltas 1-2 of the run: 4 ticks each
        04 04 04 04  04 04 04 04  04 04 04 04  04 04 04 04   # deltas 3-18
        04 04         # deltas 19-20
        01            # seq 121: small, 1 tick
        01 2C         # seq 122: large, 300 ticks
        FF            # seq 123: small, 255 ticks (the largest small delta)
        FF FC         # seq 124: large, -4 ticks (negative deltas are always large)
        00            # seq 126: small, 0 ticks
        02 03 04 05  06 07 08 09   # the eight received packets of the one-bit vector
        00 00 03      # 20 + 6 chunk bytes + 35 delta bytes = 61; 3 bytes of padding, count 3
        """)

    @Test func buildsGolden() throws {
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPTransportFeedback.write(
                senderSSRC: 0x0A0B_0C0D, mediaSSRC: 0x0102_0304, baseSequenceNumber: 100, referenceTime: -2,
                feedbackPacketCount: 7, receiveDeltas: Self.goldenDeltas, into: &writer)
        }
        #expect(bytes == golden)
    }

    @Test func parsesGolden() throws {
        try withRTCPPacket(golden) { view throws in
            #expect(view.paddingByteCount == 3)
            #expect(view.kind == .transportFeedback)
            let feedback = try RTCPTransportFeedback(view)
            #expect(feedback.senderSSRC == 0x0A0B_0C0D)
            #expect(feedback.mediaSSRC == 0x0102_0304)
            #expect(feedback.baseSequenceNumber == 100)
            #expect(feedback.packetStatusCount == 41)
            #expect(feedback.referenceTime == -2)
            #expect(feedback.referenceTimeMicroseconds == -128_000)
            #expect(feedback.feedbackPacketCount == 7)
            let results = Array(feedback.packetResults)
            #expect(results == Self.expectedResults(base: 100, deltas: Self.goldenDeltas))
            #expect(results[22] == Result(sequenceNumber: 122, status: .receivedLargeDelta, receiveDeltaTicks: 300))
            #expect(results[24].receiveDeltaMicroseconds == -1000)
        }
    }

    @Test func parsesLargeDeltaRunAcrossTheSequenceWrap() throws {
        let bytes = hexBytes(
            """
            8F CD 00 06   # P=0, FMT=15; 28 bytes -> length 6
            00 00 00 01  00 00 00 02
            FF FE 00 03   # base 65534, 3 packets
            00 00 10 00   # reference time 16 (x 64 ms); fb pkt count 0
            40 03         # run length: S=10 (large), run 3 -> 0 10 0000000000011
            04 00         # +1024 ticks
            80 00         # -32768 ticks
            7F FF         # +32767 ticks
            """)
        try withRTCPPacket(bytes) { view throws in
            let feedback = try RTCPTransportFeedback(view)
            #expect(feedback.referenceTimeMicroseconds == 1_024_000)
            #expect(
                Array(feedback.packetResults) == [
                    Result(sequenceNumber: 65534, status: .receivedLargeDelta, receiveDeltaTicks: 1024),
                    Result(sequenceNumber: 65535, status: .receivedLargeDelta, receiveDeltaTicks: -32768),
                    Result(sequenceNumber: 0, status: .receivedLargeDelta, receiveDeltaTicks: 32767),
                ])
        }
    }

    @Test func ignoresSymbolsPastTheStatusCountAndZeroPadding() throws {
        let bytes = hexBytes(
            """
            8F CD 00 05   # P=0, FMT=15; 24 bytes
            00 00 00 01  00 00 00 02
            00 0A 00 02   # base 10, 2 packets
            00 00 00 01   # reference time 0; fb pkt count 1
            D3 FF         # 2-bit vector: 1 0 then five reserved symbols past the count -> 11 01 00 11 11 11 11 11
            05            # seq 10: small, 5 ticks
            00            # the draft's zero padding, without the P bit
            """)
        try withRTCPPacket(bytes) { view throws in
            #expect(
                Array(try RTCPTransportFeedback(view).packetResults) == [
                    Result(sequenceNumber: 10, status: .receivedSmallDelta, receiveDeltaTicks: 5),
                    Result(sequenceNumber: 11, status: .notReceived, receiveDeltaTicks: 0),
                ])
        }
    }

    @Test func longLossRunUsesOneChunk() throws {
        let deltas: [Int16?] = [7] + Array(repeating: nil, count: 8000) + [9]
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPTransportFeedback.write(
                senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 0,
                receiveDeltas: deltas, into: &writer)
        }
        // Chunks: a one-bit vector for the small delta and the first 13 losses (10 1 0000000000000),
        // a run of the other 7987 losses (0 00 1111100110011), a run of one small (0 01 0...01);
        // then the two deltas.
        #expect(Array(bytes[20..<28]) == hexBytes("A000  1F33  2001  07 09"))
        try withRTCPPacket(bytes) { view throws in
            #expect(
                Array(try RTCPTransportFeedback(view).packetResults) == Self.expectedResults(base: 0, deltas: deltas))
        }
    }

    @Test func randomArrivalPatternsRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x5457_4343)
        for trial in 0..<500 {
            let count = Int.random(in: 1...700, using: &generator)
            let lossRate = Double.random(in: 0...0.6, using: &generator)
            let largeRate = Double.random(in: 0...0.3, using: &generator)
            var deltas: [Int16?] = []
            while deltas.count < count {
                // Losses come in bursts so runs, one-bit and two-bit chunks all get exercised.
                if Double.random(in: 0..<1, using: &generator) < lossRate {
                    let burst = Int.random(in: 1...(trial % 3 == 0 ? 40 : 5), using: &generator)
                    deltas += repeatElement(nil, count: min(burst, count - deltas.count))
                } else if Double.random(in: 0..<1, using: &generator) < largeRate {
                    deltas.append(
                        Bool.random(using: &generator)
                            ? Int16.random(in: 256...Int16.max, using: &generator)
                            : Int16.random(in: Int16.min...(-1), using: &generator))
                } else {
                    deltas.append(Int16.random(in: 0...255, using: &generator))
                }
            }
            let base = UInt16.random(in: 0...UInt16.max, using: &generator)
            let referenceTime = Int32.random(in: -0x80_0000...0x7F_FFFF, using: &generator)
            let feedbackCount = UInt8.random(in: 0...255, using: &generator)
            let bytes = try RTCPWriter.bytes(capacity: 4096) { writer throws(RTCPError) in
                try RTCPTransportFeedback.write(
                    senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: base, referenceTime: referenceTime,
                    feedbackPacketCount: feedbackCount, receiveDeltas: deltas, into: &writer)
            }
            #expect(bytes.count % 4 == 0)
            try withRTCPCompound(bytes) { compound throws in
                let packets = Array(compound)
                #expect(packets.count == 1)
                guard case .transportFeedback(let feedback) = packets.first else {
                    Issue.record(
                        "trial \(trial): expected transport feedback, got \(String(describing: packets.first))")
                    return
                }
                #expect(feedback.baseSequenceNumber == base)
                #expect(feedback.referenceTime == referenceTime)
                #expect(feedback.feedbackPacketCount == feedbackCount)
                #expect(Array(feedback.packetResults) == Self.expectedResults(base: base, deltas: deltas))
            }
        }
    }

    // MARK: Malformed

    @Test func statusCountZero() throws {
        let bytes = hexBytes("8F CD 00 04  00 00 00 01  00 00 00 02  00 00 00 00  00 00 00 00")
        #expect(throws: RTCPError.transportCCStatusCountZero) {
            try withRTCPPacket(bytes) { try RTCPTransportFeedback($0) }
        }
    }

    @Test func statusCountPastEnd() throws {
        let bytes = hexBytes(
            """
            8F CD 00 05   # 24 bytes: room for two chunks
            00 00 00 01  00 00 00 02
            00 00 00 14   # base 0, 20 packets
            00 00 00 00
            20 05         # run of 5 small
            00 00         # run of 0 not received: describes nothing, and the bytes run out at 5 of 20
            """)
        #expect(throws: RTCPError.transportCCStatusCountPastEnd(statusCount: 20, described: 5, available: 4)) {
            try withRTCPPacket(bytes) { try RTCPTransportFeedback($0) }
        }
    }

    @Test func reservedSymbol() throws {
        let bytes = hexBytes(
            """
            8F CD 00 05
            00 00 00 01  00 00 00 02
            00 00 00 01   # 1 packet
            00 00 00 00
            60 01         # run length with S=11, reserved
            00 00
            """)
        #expect(throws: RTCPError.transportCCReservedSymbol(chunkIndex: 0)) {
            try withRTCPPacket(bytes) { try RTCPTransportFeedback($0) }
        }
    }

    @Test func deltasPastEnd() throws {
        let bytes = hexBytes(
            """
            8F CD 00 05
            00 00 00 01  00 00 00 02
            00 00 00 04   # 4 packets
            00 00 00 00
            40 04         # run of 4 large: 8 delta bytes
            00 10         # only 2 follow
            """)
        #expect(throws: RTCPError.transportCCDeltasPastEnd(neededBytes: 8, available: 2)) {
            try withRTCPPacket(bytes) { try RTCPTransportFeedback($0) }
        }
    }

    @Test func lengthZero() throws {
        #expect(throws: RTCPError.packetTooShort(kind: .transportFeedback, minimumBytes: 20, available: 4)) {
            try withRTCPPacket(hexBytes("8F CD 00 00")) { try RTCPTransportFeedback($0) }
        }
    }

    @Test func buildingNothingOrTooMuch() throws {
        #expect(throws: RTCPError.noItems(kind: .transportFeedback)) {
            _ = try RTCPWriter.bytes { writer throws(RTCPError) in
                try RTCPTransportFeedback.write(
                    senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 0,
                    receiveDeltas: EmptyCollection(), into: &writer)
            }
        }
        #expect(throws: RTCPError.tooManyItems(kind: .transportFeedback, count: 65536, maximum: 65535)) {
            _ = try RTCPWriter.bytes { writer throws(RTCPError) in
                try RTCPTransportFeedback.write(
                    senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 0,
                    receiveDeltas: repeatElement(nil, count: 65536), into: &writer)
            }
        }
    }

    /// What parsing should say of `deltas` written from `base`.
    static func expectedResults(base: UInt16, deltas: [Int16?]) -> [Result] {
        deltas.enumerated().map { index, delta in
            let sequenceNumber = base &+ UInt16(truncatingIfNeeded: index)
            guard let delta else {
                return Result(sequenceNumber: sequenceNumber, status: .notReceived, receiveDeltaTicks: 0)
            }
            let status: RTCPTransportFeedback.Status =
                (0...255).contains(delta) ? .receivedSmallDelta : .receivedLargeDelta
            return Result(sequenceNumber: sequenceNumber, status: status, receiveDeltaTicks: delta)
        }
    }
}
