import CSystemShims
import Glibc
import Testing

/// recvmmsg / sendmmsg through the C shim, over real UDP sockets on loopback.
@Suite struct DatagramBatchTests {
    @Test func sendsAndReceivesABatch() throws {
        let receiver = try boundLoopbackSocket()
        defer { close(receiver.descriptor) }
        let sender = try boundLoopbackSocket()
        defer { close(sender.descriptor) }

        let count = 16
        let capacity = 256
        let buffers = UnsafeMutableRawBufferPointer.allocate(byteCount: count * capacity, alignment: 16)
        defer { buffers.deallocate() }
        var slots = [switchyard_datagram_slot](repeating: switchyard_datagram_slot(), count: count)
        for index in 0..<count {
            let slot = buffers.baseAddress! + index * capacity
            let length = 10 + index
            for byte in 0..<length { slot.storeBytes(of: UInt8(truncatingIfNeeded: index &* 31 &+ byte), toByteOffset: byte, as: UInt8.self) }
            slots[index].buffer = slot
            slots[index].capacity = capacity
            slots[index].length = length
            withUnsafeMutableBytes(of: &slots[index].address) { destination in
                withUnsafeBytes(of: receiver.address) { destination.copyMemory(from: $0) }
            }
            slots[index].address_length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        #expect(switchyard_send_batch(sender.descriptor, &slots, UInt32(count)) == Int32(count))

        let received = UnsafeMutableRawBufferPointer.allocate(byteCount: count * capacity, alignment: 16)
        defer { received.deallocate() }
        var receiveSlots = [switchyard_datagram_slot](repeating: switchyard_datagram_slot(), count: count)
        for index in 0..<count {
            receiveSlots[index].buffer = received.baseAddress! + index * capacity
            receiveSlots[index].capacity = capacity
        }
        var total = 0
        var attempts = 0
        while total < count && attempts < 100 {
            let got = receiveSlots.withUnsafeMutableBufferPointer { slotsBuffer in
                switchyard_recv_batch(receiver.descriptor, slotsBuffer.baseAddress! + total, UInt32(count - total))
            }
            if got > 0 { total += Int(got) } else { usleep(1_000) }
            attempts += 1
        }
        #expect(total == count)
        for index in 0..<count {
            #expect(receiveSlots[index].length == 10 + index)
            let bytes = UnsafeRawBufferPointer(start: receiveSlots[index].buffer, count: receiveSlots[index].length)
            #expect(bytes.first == UInt8(truncatingIfNeeded: index &* 31))
            let source = withUnsafeBytes(of: receiveSlots[index].address) { $0.load(as: sockaddr_in.self) }
            #expect(source.sin_port == sender.address.sin_port)
        }
    }

    @Test func anEmptySocketReturnsWouldBlock() throws {
        let receiver = try boundLoopbackSocket()
        defer { close(receiver.descriptor) }
        var slot = switchyard_datagram_slot()
        var byte: UInt8 = 0
        withUnsafeMutablePointer(to: &byte) { slot.buffer = UnsafeMutableRawPointer($0) }
        slot.capacity = 1
        #expect(switchyard_recv_batch(receiver.descriptor, &slot, 1) == -1)
        #expect(errno == EAGAIN || errno == EWOULDBLOCK)
    }

    /// Runs of equal sizes (the last of a run may be shorter) go out as one segmented send, yet each
    /// receiver gets every datagram as it was queued: its own length, bytes and order.
    @Test func segmentedSendsDeliverEveryDatagramAsQueued() throws {
        let first = try boundLoopbackSocket()
        defer { close(first.descriptor) }
        let second = try boundLoopbackSocket()
        defer { close(second.descriptor) }
        let sender = try boundLoopbackSocket()
        defer { close(sender.descriptor) }
        let plan: [(length: Int, to: BoundSocket)] = [
            (1200, first), (1200, first), (1200, first), (700, first), (1200, first), (90, first), (90, first),
            (1216, second), (1216, second), (1216, first), (300, second), (301, second),
        ]
        let outgoing = DatagramBuffers(count: plan.count, capacity: 1536)
        for (index, item) in plan.enumerated() { outgoing.fill(index, length: item.length, seed: index, to: item.to.address) }
        var refused: Int32 = -1
        let sent = switchyard_send_batch_segmented(sender.descriptor, outgoing.slots, UInt32(plan.count), &refused)
        #expect(sent == Int32(plan.count))
        #expect(refused == 0)
        for receiver in [first, second] {
            let expected = plan.indices.filter { plan[$0].to.address.sin_port == receiver.address.sin_port }
            let incoming = DatagramBuffers(count: expected.count, capacity: 2048)
            #expect(receiveAll(on: receiver.descriptor, into: incoming) == expected.count)
            for (position, index) in expected.enumerated() {
                #expect(incoming.bytes(position) == outgoing.bytes(index))
            }
        }
    }

    /// A socket whose UDP checksums are off (SO_NO_CHECK) makes the kernel refuse segmentation: the
    /// call says so, reports what did go out, and the rest goes out one datagram at a time. Datagrams
    /// over 1400 bytes are never segmented (a segment must fit the path's MTU), so they are not refused.
    @Test func aRefusedSegmentationIsReportedAndNothingIsLost() throws {
        let receiver = try boundLoopbackSocket()
        defer { close(receiver.descriptor) }
        let sender = try boundLoopbackSocket()
        defer { close(sender.descriptor) }
        var noChecksum: Int32 = 1
        #expect(setsockopt(sender.descriptor, SOL_SOCKET, 11 /* SO_NO_CHECK */, &noChecksum, socklen_t(MemoryLayout<Int32>.size)) == 0)
        let large = DatagramBuffers(count: 3, capacity: 1536)
        for index in 0..<3 { large.fill(index, length: 1450, seed: 90 + index, to: receiver.address) }
        var largeRefused: Int32 = -1
        #expect(switchyard_send_batch_segmented(sender.descriptor, large.slots, 3, &largeRefused) == 3)
        #expect(largeRefused == 0)
        let largeReceived = DatagramBuffers(count: 3, capacity: 2048)
        #expect(receiveAll(on: receiver.descriptor, into: largeReceived) == 3)

        let lengths = [500, 1000, 1000, 1000]
        let outgoing = DatagramBuffers(count: lengths.count, capacity: 1536)
        for (index, length) in lengths.enumerated() { outgoing.fill(index, length: length, seed: index, to: receiver.address) }
        var refused: Int32 = 0
        let sent = Int(switchyard_send_batch_segmented(sender.descriptor, outgoing.slots, UInt32(lengths.count), &refused))
        #expect(refused == 1)
        #expect(sent == 1)
        #expect(switchyard_send_batch(sender.descriptor, outgoing.slots + sent, UInt32(lengths.count - sent)) == Int32(lengths.count - sent))
        let incoming = DatagramBuffers(count: lengths.count, capacity: 2048)
        #expect(receiveAll(on: receiver.descriptor, into: incoming) == lengths.count)
        for index in lengths.indices { #expect(incoming.bytes(index) == outgoing.bytes(index)) }
    }

    /// Slots over one preallocated arena.
    private final class DatagramBuffers {
        let slots: UnsafeMutablePointer<switchyard_datagram_slot>
        private let arena: UnsafeMutableRawPointer
        let count: Int

        init(count: Int, capacity: Int) {
            self.count = count
            arena = .allocate(byteCount: count * capacity, alignment: 16)
            slots = .allocate(capacity: count)
            slots.initialize(repeating: switchyard_datagram_slot(), count: count)
            for index in 0..<count {
                slots[index].buffer = arena + index * capacity
                slots[index].capacity = capacity
            }
        }

        deinit {
            slots.deallocate()
            arena.deallocate()
        }

        func fill(_ index: Int, length: Int, seed: Int, to address: sockaddr_in) {
            for byte in 0..<length {
                slots[index].buffer.storeBytes(of: UInt8(truncatingIfNeeded: seed &* 31 &+ byte), toByteOffset: byte, as: UInt8.self)
            }
            slots[index].length = length
            withUnsafeMutableBytes(of: &slots[index].address) { destination in
                withUnsafeBytes(of: address) { destination.copyMemory(from: $0) }
            }
            slots[index].address_length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }

        func bytes(_ index: Int) -> [UInt8] {
            Array(UnsafeRawBufferPointer(start: slots[index].buffer, count: slots[index].length))
        }
    }

    /// Receives until `buffers` is full or nothing more comes for 100 ms; returns how many arrived.
    private func receiveAll(on descriptor: Int32, into buffers: DatagramBuffers) -> Int {
        var total = 0
        var idle = 0
        while total < buffers.count && idle < 100 {
            let got = switchyard_recv_batch(descriptor, buffers.slots + total, UInt32(buffers.count - total))
            if got > 0 { total += Int(got) } else { usleep(1_000); idle += 1 }
        }
        return total
    }

    private struct BoundSocket {
        var descriptor: Int32
        var address: sockaddr_in
    }

    private struct SocketError: Error {
        var call: String
        var code: Int32
    }

    private func boundLoopbackSocket() throws -> BoundSocket {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw SocketError(call: "bind", code: errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return BoundSocket(descriptor: descriptor, address: address)
    }
}
