import ICE
import Testing

@Suite struct PacketClassTests {
    @Test(arguments: [
        (UInt8(0), PacketClass.stun), (1, .stun), (3, .stun),
        (4, .unknown), (15, .unknown),
        (16, .zrtp), (19, .zrtp),
        (20, .dtls), (22, .dtls), (63, .dtls),
        (64, .turnChannel), (79, .turnChannel),
        (80, .unknown), (127, .unknown),
        (128, .rtpOrRTCP), (0x80, .rtpOrRTCP), (191, .rtpOrRTCP),
        (192, .unknown), (255, .unknown),
    ])
    func classifiesByFirstByte(firstByte: UInt8, expected: PacketClass) {
        #expect(PacketClass.demultiplex(firstByte: firstByte) == expected)
    }

    @Test func theRFC5769SampleRequestIsSTUN() {
        #expect(PacketClass.demultiplex(firstByte: rfc5769SampleRequest[0]) == .stun)
    }
}
