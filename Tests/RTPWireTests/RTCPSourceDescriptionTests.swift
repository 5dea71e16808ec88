import Testing
import TestSupport

@testable import RTPWire

@Suite struct RTCPSourceDescriptionTests {
    let cnameGolden = hexBytes(
        """
        81 CA 00 05   # V=2,P=0,SC=1; PT=202; 24 bytes = 6 words -> length 5
        12 34 56 78   # chunk 1: SSRC
        01 0A 75 73   # CNAME (type 1), length 10, "us"
        65 72 31 40   # "er1@"
        68 6F 73 74   # "host"
        00 00 00 00   # null terminator; 4+2+10+1 = 17 bytes padded to 20 with three more nulls
        """)

    @Test func buildsCNAMEGolden() throws {
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPSourceDescription.write(ssrc: 0x1234_5678, cname: "user1@host", into: &writer)
        }
        #expect(bytes == cnameGolden)
    }

    @Test func parsesCNAMEGolden() throws {
        try withRTCPPacket(cnameGolden) { view throws in
            let description = try RTCPSourceDescription(view)
            #expect(description.chunkCount == 1)
            let chunks = Array(description.chunks)
            #expect(chunks.count == 1)
            #expect(chunks[0].ssrc == 0x1234_5678)
            #expect(chunks[0].cnameString == "user1@host")
        }
    }

    @Test func buildsAlignedChunksForEveryTextLength() throws {
        // Whatever the text length, a chunk ends with 1 to 4 nulls on a 32-bit boundary.
        for length in 0...9 {
            let cname = String(repeating: "x", count: length)
            let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
                try RTCPSourceDescription.write(ssrc: 1, cname: cname, into: &writer)
            }
            let chunkBytes = (4 + 2 + length + 1 + 3) / 4 * 4
            #expect(bytes.count == 4 + chunkBytes)
            #expect(bytes[(4 + 6 + length)...].allSatisfy { $0 == 0 })
            try withRTCPPacket(bytes) { view throws in
                let chunk = try #require(Array(try RTCPSourceDescription(view).chunks).first)
                #expect(chunk.cnameString == cname)
            }
        }
    }

    @Test func skipsOtherItemsAndFindsCNAMEInEachChunk() throws {
        let bytes = hexBytes(
            """
            83 CA 00 0A   # SC=3; 44 bytes -> length 10
            00 00 00 0A   # chunk 1: SSRC 10
            02 02 41 6C   # NAME (type 2), length 2, "Al"
            01 01 61 00   # CNAME, length 1, "a"; null terminator at offset 15, so chunk 2 starts at 16
            00 00 00 0B   # chunk 2: SSRC 11
            06 03 74 6F   # TOOL (type 6), length 3, "to"
            6F 00 00 00   # "o"; null terminator, two nulls to the boundary
            00 00 00 0C   # chunk 3: SSRC 12
            01 02 62 63   # CNAME "bc"
            08 00 00 00   # PRIV (type 8), length 0; null terminator, one more null
            00 00 00 00   # trailing bytes after the last chunk are ignored
            """)
        try withRTCPPacket(bytes) { view throws in
            let chunks = Array(try RTCPSourceDescription(view).chunks)
            #expect(chunks.map(\.ssrc) == [10, 11, 12])
            #expect(chunks.map(\.cnameString) == ["a", nil, "bc"])
        }
    }

    @Test func buildsSeveralChunks() throws {
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPSourceDescription.write(chunks: [(ssrc: 1, cname: "a"), (ssrc: 2, cname: "bcdef")], into: &writer)
        }
        #expect(
            bytes
                == hexBytes(
                    """
                    82 CA 00 05   # SC=2; 4 + 8 + 12 = 24 bytes -> length 5
                    00 00 00 01  01 01 61 00   # SSRC 1, CNAME "a", null (4+2+1+1 = 8)
                    00 00 00 02  01 05 62 63  64 65 66 00   # SSRC 2, CNAME "bcdef", null (4+2+5+1 = 12)
                    """))
    }

    @Test func emptyDescriptionIsLegal() throws {
        try withRTCPPacket(hexBytes("80 CA 00 00")) { view throws in
            #expect(Array(try RTCPSourceDescription(view).chunks).isEmpty)
        }
    }

    // MARK: Malformed

    @Test func chunkWithoutTerminator() throws {
        let bytes = hexBytes(
            """
            81 CA 00 02   # SC=1, 12 bytes
            00 00 00 01   # SSRC
            01 02 61 62   # CNAME "ab" ends exactly at the packet end: no null octet follows
            """)
        #expect(throws: RTCPError.sdesWithoutTerminator(chunkIndex: 0)) {
            try withRTCPPacket(bytes) { try RTCPSourceDescription($0) }
        }
    }

    @Test func itemPastEnd() throws {
        let bytes = hexBytes(
            """
            81 CA 00 02   # SC=1, 12 bytes
            00 00 00 01   # SSRC
            01 09 61 62   # CNAME claims 9 bytes of text: 11 item bytes where 4 remain
            """)
        #expect(throws: RTCPError.sdesItemPastEnd(chunkIndex: 0, itemType: 1, itemBytes: 11, available: 4)) {
            try withRTCPPacket(bytes) { try RTCPSourceDescription($0) }
        }
    }

    @Test func itemLengthOctetPastEnd() throws {
        let bytes = hexBytes(
            """
            A1 CA 00 02   # P=1, SC=1, 12 bytes
            00 00 00 01   # SSRC
            01 00 00 03   # CNAME type octet, then 3 bytes of padding swallow its length octet
            """)
        #expect(throws: RTCPError.sdesItemPastEnd(chunkIndex: 0, itemType: 1, itemBytes: 2, available: 1)) {
            try withRTCPPacket(bytes) { try RTCPSourceDescription($0) }
        }
    }

    @Test func chunkPastEnd() throws {
        let bytes = hexBytes(
            """
            82 CA 00 02   # SC=2 but only one chunk fits in 12 bytes
            00 00 00 01   # chunk 1: SSRC
            00 00 00 00   # chunk 1: terminator
            """)
        #expect(throws: RTCPError.sdesChunkPastEnd(chunkIndex: 1, count: 2)) {
            try withRTCPPacket(bytes) { try RTCPSourceDescription($0) }
        }
    }

    @Test func cnameTooLong() throws {
        #expect(throws: RTCPError.textTooLong(kind: .sourceDescription, byteCount: 256, maximum: 255)) {
            _ = try RTCPWriter.bytes { writer throws(RTCPError) in
                try RTCPSourceDescription.write(ssrc: 1, cname: String(repeating: "a", count: 256), into: &writer)
            }
        }
    }
}

@Suite struct RTCPByeTests {
    let golden = hexBytes(
        """
        82 CB 00 03   # V=2,P=0,SC=2; PT=203; 16 bytes -> length 3
        11 11 11 11   # SSRC 1
        22 22 22 22   # SSRC 2
        03 62 79 65   # reason length 3, "bye": 4 bytes, already aligned
        """)

    @Test func buildsGolden() throws {
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPBye.write(ssrcs: [0x1111_1111, 0x2222_2222], reason: "bye", into: &writer)
        }
        #expect(bytes == golden)
    }

    @Test func parsesGolden() throws {
        try withRTCPPacket(golden) { view throws in
            let bye = try RTCPBye(view)
            #expect(Array(bye.ssrcs) == [0x1111_1111, 0x2222_2222])
            #expect(bye.ssrc(at: 1) == 0x2222_2222)
            #expect(bye.reasonString == "bye")
        }
    }

    @Test func reasonIsPaddedWithNulls() throws {
        let expected = hexBytes(
            """
            81 CB 00 03   # SC=1; 4 + 4 + 8 = 16 bytes -> length 3
            00 00 00 2A   # SSRC 42
            05 63 69 61   # reason length 5, "cia"
            6F 21 00 00   # "o!", two nulls to the 32-bit boundary
            """)
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPBye.write(ssrcs: CollectionOfOne(42), reason: "ciao!", into: &writer)
        }
        #expect(bytes == expected)
        try withRTCPPacket(expected) { view throws in
            #expect(try RTCPBye(view).reasonString == "ciao!")
        }
    }

    @Test func withoutReason() throws {
        let expected = hexBytes("81 CB 00 01  00 00 00 2A")  // SC=1, 8 bytes, SSRC 42
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPBye.write(ssrcs: CollectionOfOne(42), into: &writer)
        }
        #expect(bytes == expected)
        try withRTCPPacket(expected) { view throws in
            let bye = try RTCPBye(view)
            #expect(bye.reason == nil)
            #expect(Array(bye.ssrcs) == [42])
        }
    }

    @Test func ssrcsPastEnd() throws {
        let bytes = hexBytes("83 CB 00 02  00 00 00 01  00 00 00 02")  // SC=3, room for 2
        #expect(throws: RTCPError.byeSSRCsPastEnd(count: 3, available: 8)) {
            try withRTCPPacket(bytes) { try RTCPBye($0) }
        }
    }

    @Test func reasonPastEnd() throws {
        let bytes = hexBytes(
            """
            81 CB 00 02   # SC=1, 12 bytes
            00 00 00 01   # SSRC
            08 61 62 63   # reason claims 8 bytes, 3 follow
            """)
        #expect(throws: RTCPError.byeReasonPastEnd(declaredBytes: 8, available: 3)) {
            try withRTCPPacket(bytes) { try RTCPBye($0) }
        }
    }

    @Test func reasonTooLong() throws {
        #expect(throws: RTCPError.textTooLong(kind: .bye, byteCount: 300, maximum: 255)) {
            _ = try RTCPWriter.bytes { writer throws(RTCPError) in
                try RTCPBye.write(ssrcs: [1], reason: String(repeating: "z", count: 300), into: &writer)
            }
        }
    }
}
