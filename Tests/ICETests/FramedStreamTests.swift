import Testing

@testable import ICE

/// RFC 4571 framing: frames split anywhere by TCP come out whole, bounds hold, and a full send queue
/// drops whole frames only.
@Suite struct FramedStreamTests {
    /// Feeds `bytes` to `reader` in pieces of `chunk` bytes and collects every frame.
    static func frames(of bytes: [UInt8], chunk: Int, reader: inout FramedStreamReader) throws(FramedStreamReader.Failure) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            let space = reader.freeSpace()
            let count = min(chunk, space.count, bytes.count - offset)
            bytes.withUnsafeBytes { space.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
            reader.didRead(count)
            offset += count
            while let frame = try reader.nextFrame() { frames.append(Array(frame)) }
        }
        return frames
    }

    static func framed(_ payloads: [[UInt8]]) -> [UInt8] {
        payloads.flatMap { [UInt8($0.count >> 8), UInt8($0.count & 0xFF)] + $0 }
    }

    @Test(arguments: [1, 2, 3, 7, 100, 1500, 4096])
    func framesSplitAnywhereComeOutWhole(chunk: Int) throws {
        let payloads = (1...40).map { index in (0..<(index * 37 % 1400 + 1)).map { UInt8(truncatingIfNeeded: $0 &+ index) } }
        var reader = FramedStreamReader(maximumFrameBytes: 1500)
        #expect(try Self.frames(of: Self.framed(payloads), chunk: chunk, reader: &reader) == payloads)
        #expect(reader.bufferedBytes == 0)
    }

    @Test func aFrameOfTheMaximumFitsAndOneByteMoreIsRefused() throws {
        var reader = FramedStreamReader(maximumFrameBytes: 2048)
        let largest = [UInt8](repeating: 7, count: 2048)
        #expect(try Self.frames(of: Self.framed([largest, largest]), chunk: 1000, reader: &reader) == [largest, largest])
        var strict = FramedStreamReader(maximumFrameBytes: 2048)
        #expect(throws: FramedStreamReader.Failure.frameTooLong(2049, maximum: 2048)) {
            try Self.frames(of: [0x08, 0x01, 1, 2, 3], chunk: 5, reader: &strict)
        }
        var empty = FramedStreamReader(maximumFrameBytes: 2048)
        #expect(throws: FramedStreamReader.Failure.emptyFrame) { try Self.frames(of: [0, 0], chunk: 2, reader: &empty) }
    }

    @Test func theWriterQueuesWholeFramesUpToItsCapacityAndDrainsInOrder() {
        var writer = FramedStreamWriter(capacity: 1000)
        #expect(writer.pending.isEmpty)
        let payload = [UInt8](repeating: 9, count: 298)
        for _ in 0..<3 { #expect(payload.withUnsafeBytes { writer.append($0) }) }
        #expect(writer.queuedBytes == 900)
        #expect(!payload.withUnsafeBytes { writer.append($0) }, "a frame past the capacity is refused whole")
        #expect(writer.queuedBytes == 900)
        // The socket takes part of a frame: the rest stays first in line.
        let written = Array(writer.pending.prefix(450))
        writer.didWrite(450)
        #expect(payload.withUnsafeBytes { writer.append($0) }, "room made by the write is reused")
        #expect(!payload.withUnsafeBytes { writer.append($0) }, "and the capacity still holds")
        let rest = Array(writer.pending)
        #expect(rest.count == 750)
        var reader = FramedStreamReader(maximumFrameBytes: 1500)
        #expect((try? Self.frames(of: written + rest, chunk: 64, reader: &reader)) == Array(repeating: payload, count: 4))
        writer.didWrite(rest.count)
        #expect(writer.queuedBytes == 0)
    }
}
