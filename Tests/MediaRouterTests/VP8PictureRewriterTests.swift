import RTPWire
import Testing

@testable import MediaRouter

/// A VP8 payload with a 15-bit PictureID, TL0PICIDX and TID, rewritten in place as the router does.
private struct Picture {
    var bytes: [UInt8]

    init(pictureID: UInt16, tl0: UInt8, temporalLayer: UInt8, keyFrame: Bool = false) {
        bytes = [0x90, 0xE0, 0x80 | UInt8(pictureID >> 8), UInt8(pictureID & 0xFF), tl0, temporalLayer << 6, keyFrame ? 0x00 : 0x01]
    }

    /// Rewrites through `rewriter` and returns the PictureID and TL0PICIDX that would go out.
    mutating func forward(_ rewriter: inout VP8PictureRewriter) throws -> [UInt16] {
        try bytes.withUnsafeMutableBytes { payload in
            let descriptor = try VP8PayloadDescriptor(parsing: payload)
            rewriter.rewrite(descriptor, in: payload)
            let rewritten = try VP8PayloadDescriptor(parsing: payload)
            return [rewritten.pictureID!, UInt16(rewritten.tl0PictureIndex!)]
        }
    }

    func drop(_ rewriter: inout VP8PictureRewriter) throws {
        var copy = bytes
        try copy.withUnsafeMutableBytes { payload in rewriter.dropPicture(try VP8PayloadDescriptor(parsing: payload)) }
    }
}

struct VP8PictureRewriterTests {
    @Test func aLayerSwitchContinuesThePictureIDAndTheBaseLayerIndex() throws {
        var rewriter = VP8PictureRewriter()
        var first = Picture(pictureID: 100, tl0: 7, temporalLayer: 0, keyFrame: true)
        let start = try first.forward(&rewriter)
        var second = Picture(pictureID: 101, tl0: 7, temporalLayer: 1)
        #expect(try second.forward(&rewriter) == [start[0] + 1, start[1]])
        // The other layer numbers its pictures far away; after the switch they follow on.
        rewriter.startRun()
        var switched = Picture(pictureID: 30_000, tl0: 200, temporalLayer: 0, keyFrame: true)
        #expect(try switched.forward(&rewriter) == [(start[0] + 2) % 32_768, UInt16(UInt8(truncatingIfNeeded: start[1] + 1))])
        var next = Picture(pictureID: 30_001, tl0: 200, temporalLayer: 2)
        #expect(try next.forward(&rewriter) == [(start[0] + 3) % 32_768, UInt16(UInt8(truncatingIfNeeded: start[1] + 1))])
    }

    @Test func droppedTemporalPicturesLeaveNoGapAndCountOnceEach() throws {
        var rewriter = VP8PictureRewriter()
        var base = Picture(pictureID: 10, tl0: 1, temporalLayer: 0, keyFrame: true)
        let start = try base.forward(&rewriter)
        let dropped = Picture(pictureID: 11, tl0: 1, temporalLayer: 2)
        // Every packet of a picture is dropped; the picture counts once.
        try dropped.drop(&rewriter)
        try dropped.drop(&rewriter)
        var kept = Picture(pictureID: 12, tl0: 1, temporalLayer: 1)
        #expect(try kept.forward(&rewriter)[0] == start[0] + 1)
        // A packet of an older picture (reordered) neither moves nor repeats numbers.
        var late = Picture(pictureID: 10, tl0: 1, temporalLayer: 0)
        #expect(try late.forward(&rewriter)[0] == start[0])
        var following = Picture(pictureID: 13, tl0: 2, temporalLayer: 0)
        #expect(try following.forward(&rewriter)[0] == start[0] + 2)
    }

    @Test func thePictureIDWrapsAt15Bits() throws {
        var rewriter = VP8PictureRewriter()
        var first = Picture(pictureID: 32_767, tl0: 0, temporalLayer: 0, keyFrame: true)
        let start = try first.forward(&rewriter)[0]
        var wrapped = Picture(pictureID: 0, tl0: 1, temporalLayer: 0)
        #expect(try wrapped.forward(&rewriter)[0] == (start + 1) % 32_768)
    }
}
