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
