import Testing

@testable import RTPWire

@Suite struct VP8PayloadDescriptorTests {
    /// Parses `bytes` from an exactly sized buffer, so any read past the end traps the test.
    func parse(_ bytes: [UInt8]) -> Result<VP8PayloadDescriptor, VP8DescriptorError> {
        bytes.withUnsafeBytes { buffer in
            Result { () throws(VP8DescriptorError) in try VP8PayloadDescriptor(parsing: buffer) }
        }
    }

    /// The error `body` throws, nil when it returns.
    func thrownError(_ body: () throws(VP8DescriptorError) -> Void) -> VP8DescriptorError? {
        do throws(VP8DescriptorError) {
            try body()
            return nil
        } catch {
            return error
        }
    }

    /// Parses `bytes`, applies `change` to the mutable copy, and returns the bytes after it.
    func rewriting(
        _ bytes: [UInt8],
        _ change: (inout VP8PayloadDescriptor, UnsafeMutableRawBufferPointer) throws(VP8DescriptorError) -> Void
    ) throws -> (bytes: [UInt8], descriptor: VP8PayloadDescriptor) {
        var bytes = bytes
        let descriptor = try bytes.withUnsafeMutableBytes { buffer throws(VP8DescriptorError) in
            var descriptor = try VP8PayloadDescriptor(parsing: buffer)
            try change(&descriptor, buffer)
            return descriptor
        }
        return (bytes, descriptor)
    }

    @Test func minimalOneByteDescriptor() throws {
        let descriptor = try parse([0x10]).get()
        #expect(!descriptor.hasExtendedControlBits)
        #expect(!descriptor.isNonReferenceFrame)
        #expect(descriptor.isStartOfPartition)
        #expect(descriptor.partitionIndex == 0)
        #expect(descriptor.pictureID == nil)
        #expect(descriptor.pictureIDWidth == nil)
        #expect(descriptor.tl0PictureIndex == nil)
        #expect(descriptor.temporalLayerID == nil)
        #expect(!descriptor.isLayerSync)
        #expect(descriptor.keyIndex == nil)
        #expect(descriptor.length == 1)
        #expect(descriptor.firstPayloadHeaderByte == nil)
        #expect(descriptor.isStartOfFrame)
        // Without the payload header nothing proves a key frame.
        #expect(!descriptor.isKeyFrame)
    }

    @Test func requiredOctetFlagsAndPartitionIndex() throws {
        // N=1, S=0, PID=3, reserved bits set: reserved bits are ignored.
        let descriptor = try parse([0x6B, 0x00]).get()
        #expect(descriptor.isNonReferenceFrame)
        #expect(!descriptor.isStartOfPartition)
        #expect(descriptor.partitionIndex == 3)
        #expect(descriptor.length == 1)
        #expect(descriptor.firstPayloadHeaderByte == 0x00)
        #expect(!descriptor.isStartOfFrame)
        #expect(!descriptor.isKeyFrame)
    }

    @Test func extendedWithSevenBitPictureID() throws {
        let descriptor = try parse([0x90, 0x80, 0x2A, 0x01, 0xFF]).get()
        #expect(descriptor.hasExtendedControlBits)
        #expect(descriptor.pictureID == 42)
        #expect(descriptor.pictureIDWidth == .sevenBits)
        #expect(descriptor.tl0PictureIndex == nil)
        #expect(descriptor.temporalLayerID == nil)
        #expect(descriptor.keyIndex == nil)
        #expect(descriptor.length == 3)
        #expect(descriptor.firstPayloadHeaderByte == 0x01)
        #expect(descriptor.isStartOfFrame)
        #expect(!descriptor.isKeyFrame)
    }

    @Test func extendedWithFifteenBitPictureIDTL0PictureIndexAndLayerOctet() throws {
        // I L T K; M=1, PictureID 0x1234; TL0PICIDX 7; TID=2, Y=1, KEYIDX=5; payload header P=0.
        let descriptor = try parse([0x90, 0xF0, 0x92, 0x34, 0x07, 0xA5, 0x9C, 0x01]).get()
        #expect(descriptor.hasExtendedControlBits)
        #expect(!descriptor.isNonReferenceFrame)
        #expect(descriptor.isStartOfPartition)
        #expect(descriptor.partitionIndex == 0)
        #expect(descriptor.pictureID == 0x1234)
        #expect(descriptor.pictureIDWidth == .fifteenBits)
        #expect(descriptor.tl0PictureIndex == 7)
        #expect(descriptor.temporalLayerID == 2)
        #expect(descriptor.isLayerSync)
        #expect(descriptor.keyIndex == 5)
        #expect(descriptor.length == 6)
        #expect(descriptor.firstPayloadHeaderByte == 0x9C)
        #expect(descriptor.isKeyFrame)
    }

    @Test func layerOctetWithOnlyKeyIndexOrOnlyTemporalLayer() throws {
        let keyOnly = try parse([0x80, 0x10, 0xE5]).get()
        #expect(keyOnly.temporalLayerID == nil)
        #expect(!keyOnly.isLayerSync)
        #expect(keyOnly.keyIndex == 5)
        #expect(keyOnly.length == 3)

        let layerOnly = try parse([0x80, 0x20, 0x5F]).get()
        #expect(layerOnly.temporalLayerID == 1)
        #expect(!layerOnly.isLayerSync)
        #expect(layerOnly.keyIndex == nil)
        #expect(layerOnly.length == 3)
    }

    @Test func keyFrameAndDeltaFrameDetection() throws {
        // S=1, PID=0, P=0: key frame.
        #expect(try parse([0x10, 0x50, 0x2A, 0x00]).get().isKeyFrame)
        // P=1: delta frame.
        #expect(try !parse([0x10, 0x31, 0x02, 0x00]).get().isKeyFrame)
        // A later packet of a key frame: S=0 means the P bit is not there to read.
        #expect(try !parse([0x00, 0x9C]).get().isKeyFrame)
        // Start of partition 1, not of the frame.
        let secondPartition = try parse([0x11, 0x9C]).get()
        #expect(!secondPartition.isStartOfFrame)
        #expect(!secondPartition.isKeyFrame)
        // Key frame behind a full descriptor.
        #expect(try parse([0x90, 0xF0, 0x80, 0x01, 0x07, 0x20, 0x50]).get().isKeyFrame)
        #expect(try !parse([0x90, 0xF0, 0x80, 0x01, 0x07, 0x20, 0x51]).get().isKeyFrame)
    }

    @Test func rewritesFifteenBitPictureIDAndTL0PictureIndexInPlace() throws {
        let original: [UInt8] = [0x90, 0xE0, 0x92, 0x34, 0x07, 0xAA]
        let rewritten = try rewriting(original) { descriptor, buffer throws(VP8DescriptorError) in
            try descriptor.rewrite(pictureID: 0x0ABC, in: buffer)
            try descriptor.rewrite(tl0PictureIndex: 0xFE, in: buffer)
        }
        #expect(rewritten.bytes == [0x90, 0xE0, 0x8A, 0xBC, 0xFE, 0xAA])
        #expect(rewritten.descriptor.pictureID == 0x0ABC)
        #expect(rewritten.descriptor.tl0PictureIndex == 0xFE)
        #expect(try parse(rewritten.bytes).get() == rewritten.descriptor)

        // Bit 15 does not fit: 0x8001 mod 32768 = 1, and the M bit stays set.
        let wrapped = try rewriting(original) { descriptor, buffer throws(VP8DescriptorError) in
            try descriptor.rewrite(pictureID: 0x8001, in: buffer)
        }
        #expect(wrapped.bytes == [0x90, 0xE0, 0x80, 0x01, 0x07, 0xAA])
        #expect(wrapped.descriptor.pictureID == 1)
    }

    @Test func rewritesSevenBitPictureIDModulo128AndTL0PictureIndexInPlace() throws {
        let original: [UInt8] = [0x90, 0xC0, 0x2A, 0x07, 0xAA]
        let rewritten = try rewriting(original) { descriptor, buffer throws(VP8DescriptorError) in
            // 300 mod 128 = 44 = 0x2C; the M bit stays clear.
            try descriptor.rewrite(pictureID: 300, in: buffer)
            try descriptor.rewrite(tl0PictureIndex: 0x99, in: buffer)
        }
        #expect(rewritten.bytes == [0x90, 0xC0, 0x2C, 0x99, 0xAA])
        #expect(rewritten.descriptor.pictureID == 44)
        #expect(rewritten.descriptor.pictureIDWidth == .sevenBits)
        #expect(try parse(rewritten.bytes).get() == rewritten.descriptor)

        let largest = try rewriting(original) { descriptor, buffer throws(VP8DescriptorError) in
            try descriptor.rewrite(pictureID: 0x7FFF, in: buffer)
        }
        #expect(largest.bytes == [0x90, 0xC0, 0x7F, 0x07, 0xAA])
    }

    @Test func rewritesTL0PictureIndexWithoutPictureID() throws {
        let rewritten = try rewriting([0x80, 0x40, 0x05, 0x00]) { descriptor, buffer throws(VP8DescriptorError) in
            try descriptor.rewrite(tl0PictureIndex: 6, in: buffer)
        }
        #expect(rewritten.bytes == [0x80, 0x40, 0x06, 0x00])
    }

    @Test func rewriteOfAbsentFieldsThrowsAndLeavesBytesAlone() throws {
        var bytes: [UInt8] = [0x90, 0x20, 0x40, 0x00]
        let results = bytes.withUnsafeMutableBytes { buffer in
            var descriptor = try! VP8PayloadDescriptor(parsing: buffer)
            let pictureID = thrownError { () throws(VP8DescriptorError) in try descriptor.rewrite(pictureID: 1, in: buffer) }
            let tl0 = thrownError { () throws(VP8DescriptorError) in try descriptor.rewrite(tl0PictureIndex: 1, in: buffer) }
            return (pictureID, tl0)
        }
        #expect(results.0 == .pictureIDAbsent)
        #expect(results.1 == .tl0PictureIndexAbsent)
        #expect(bytes == [0x90, 0x20, 0x40, 0x00])
    }

    @Test func rewriteIntoAShorterBufferThrowsInsteadOfWritingPastIt() throws {
        var descriptor = try parse([0x90, 0xC0, 0x92, 0x34, 0x07]).get()
        var short: [UInt8] = [0x90, 0xC0, 0x92]
        let results = short.withUnsafeMutableBytes { buffer in
            (
                thrownError { () throws(VP8DescriptorError) in try descriptor.rewrite(pictureID: 1, in: buffer) },
                thrownError { () throws(VP8DescriptorError) in try descriptor.rewrite(tl0PictureIndex: 1, in: buffer) }
            )
        }
        #expect(results.0 == .truncated(field: .pictureID, needed: 4, available: 3))
        #expect(results.1 == .truncated(field: .tl0PictureIndex, needed: 5, available: 3))
        #expect(short == [0x90, 0xC0, 0x92])
    }

    @Test func everyTruncationGivesItsTypedError() throws {
        #expect(parse([]) == .failure(.emptyPayload))
        #expect(parse([0x80]) == .failure(.truncated(field: .extendedControlBits, needed: 2, available: 1)))
        #expect(parse([0x80, 0x80]) == .failure(.truncated(field: .pictureID, needed: 3, available: 2)))
        #expect(parse([0x80, 0x80, 0x80]) == .failure(.truncated(field: .pictureID, needed: 4, available: 3)))
        #expect(parse([0x80, 0x40]) == .failure(.truncated(field: .tl0PictureIndex, needed: 3, available: 2)))
        #expect(parse([0x80, 0x20]) == .failure(.truncated(field: .temporalLayerAndKeyIndex, needed: 3, available: 2)))
        #expect(parse([0x80, 0x10]) == .failure(.truncated(field: .temporalLayerAndKeyIndex, needed: 3, available: 2)))
        #expect(parse([0x80, 0xC0, 0x05]) == .failure(.truncated(field: .tl0PictureIndex, needed: 4, available: 3)))

        // Every flag set: each prefix of the 6-byte descriptor fails at the field it cuts into.
        let full: [UInt8] = [0x90, 0xF0, 0x81, 0x02, 0x03, 0x04]
        let expected: [VP8DescriptorError] = [
            .emptyPayload,
            .truncated(field: .extendedControlBits, needed: 2, available: 1),
            .truncated(field: .pictureID, needed: 3, available: 2),
            .truncated(field: .pictureID, needed: 4, available: 3),
            .truncated(field: .tl0PictureIndex, needed: 5, available: 4),
            .truncated(field: .temporalLayerAndKeyIndex, needed: 6, available: 5),
        ]
        for length in 0..<full.count {
            #expect(parse(Array(full.prefix(length))) == .failure(expected[length]))
        }
        #expect(try parse(full).get().length == 6)
    }

    @Test func anyShortInputParsesOrThrowsWithoutReadingPastTheEnd() {
        // Exactly sized buffers trap on any out-of-bounds read in debug builds.
        for first in UInt8.min...UInt8.max {
            for second in UInt8.min...UInt8.max {
                for bytes in [[first], [first, second], [first, second, first], [first, second, second, first]] {
                    let consistent: Bool
                    switch parse(bytes) {
                    case .success(let descriptor):
                        consistent = descriptor.length <= bytes.count
                    case .failure(.truncated(_, let needed, let available)):
                        consistent = available == bytes.count && needed > available
                    case .failure:
                        consistent = false
                    }
                    if !consistent { Issue.record("inconsistent result for \(bytes)") }
                }
            }
        }
    }
}
