import RTPWire
import Testing

/// Key frames of H.264 payloads in each RFC 6184 packetization mode 1 form.
struct H264KeyFrameTests {
    private func starts(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { H264KeyFrame.starts($0) }
    }

    @Test func singleNALUnitsStartAKeyFrameWhenIDROrSequenceParameterSet() {
        #expect(starts([0x65, 0x88, 0x84]), "IDR slice (type 5, NRI 3)")
        #expect(starts([0x67, 0x42, 0xC0, 0x1F]), "sequence parameter set (type 7)")
        #expect(!starts([0x41, 0x9A, 0x02]), "non-IDR slice (type 1)")
        #expect(!starts([0x68, 0xCE, 0x3C, 0x80]), "picture parameter set alone (type 8)")
        #expect(!starts([0x06, 0x05]), "SEI (type 6)")
        #expect(!starts([]))
    }

    @Test func anAggregationStartsAKeyFrameWhenOneOfItsUnitsDoes() {
        // STAP-A: SPS (4 bytes), PPS (4 bytes), as encoders send them ahead of an IDR.
        #expect(starts([0x78, 0x00, 0x04, 0x67, 0x42, 0xC0, 0x1F, 0x00, 0x04, 0x68, 0xCE, 0x3C, 0x80]))
        #expect(!starts([0x78, 0x00, 0x02, 0x06, 0x05, 0x00, 0x03, 0x41, 0x9A, 0x02]), "SEI and a non-IDR slice")
        #expect(!starts([0x78, 0x00, 0x09, 0x67, 0x42]), "a unit whose size runs past the packet is not trusted")
        #expect(!starts([0x78, 0x00, 0x00, 0x67]), "an empty unit ends the walk")
        #expect(!starts([0x78]))
    }

    @Test func aFragmentStartsAKeyFrameOnlyAsTheFirstFragmentOfAnIDR() {
        #expect(starts([0x7C, 0x85, 0x88]), "FU-A, start bit, IDR")
        #expect(!starts([0x7C, 0x05, 0x88]), "FU-A, middle of an IDR")
        #expect(!starts([0x7C, 0x45, 0x88]), "FU-A, end of an IDR")
        #expect(!starts([0x5C, 0x81, 0x9A]), "FU-A, start of a non-IDR slice")
        #expect(!starts([0x7C]), "FU-A without its header")
    }
}
