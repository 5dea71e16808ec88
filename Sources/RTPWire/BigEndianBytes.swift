// Big-endian field access on raw packet memory. Every parser checks its bounds before calling these;
// the accessors themselves stay branch-free so the packet path pays for one check per field group.

extension UnsafeRawBufferPointer {
    @inlinable
    func uint8(at offset: Int) -> UInt8 {
        self[offset]
    }

    @inlinable
    func uint16(at offset: Int) -> UInt16 {
        UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inlinable
    func uint24(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 16 | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2])
    }

    @inlinable
    func uint32(at offset: Int) -> UInt32 {
        UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inlinable
    func uint64(at offset: Int) -> UInt64 {
        UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

extension UnsafeMutableRawBufferPointer {
    @inlinable
    func uint8(at offset: Int) -> UInt8 {
        self[offset]
    }

    @inlinable
    func uint16(at offset: Int) -> UInt16 {
        UnsafeRawBufferPointer(self).uint16(at: offset)
    }

    @inlinable
    func uint24(at offset: Int) -> UInt32 {
        UnsafeRawBufferPointer(self).uint24(at: offset)
    }

    @inlinable
    func uint32(at offset: Int) -> UInt32 {
        UnsafeRawBufferPointer(self).uint32(at: offset)
    }

    @inlinable
    func uint64(at offset: Int) -> UInt64 {
        UnsafeRawBufferPointer(self).uint64(at: offset)
    }

    @inlinable
    func setUInt8(_ value: UInt8, at offset: Int) {
        self[offset] = value
    }

    @inlinable
    func setUInt16(_ value: UInt16, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt16.self)
    }

    @inlinable
    func setUInt24(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 2] = UInt8(truncatingIfNeeded: value)
    }

    @inlinable
    func setUInt32(_ value: UInt32, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }

    @inlinable
    func setUInt64(_ value: UInt64, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
    }

    /// Moves `count` bytes from `source` to `destination` within this buffer; the ranges may overlap.
    @inlinable
    func moveBytes(from source: Int, to destination: Int, count: Int) {
        guard count > 0, source != destination, let base = baseAddress else { return }
        (base + destination).copyMemory(from: base + source, byteCount: count)
    }
}
