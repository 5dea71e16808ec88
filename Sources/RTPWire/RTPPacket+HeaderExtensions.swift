// RFC 8285 header extension elements: lookup, in-place rewrite, add and remove.
//
// One-byte form (profile 0xBEDE)          Two-byte form (profile 0x100X)
//  0 1 2 3 4 5 6 7                         0                   1
// +-+-+-+-+-+-+-+-+-----------+            0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
// |  ID   |  L=n-1| n bytes   |           +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+----------+
// +-+-+-+-+-+-+-+-+-----------+           |       ID      |   L = n       | n bytes  |
//                                          +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+----------+
// A zero byte between elements is padding; the block is padded with zeros to a 32-bit boundary.

/// Where one extension element sits in the packet.
@usableFromInline
struct HeaderExtensionElementLocation {
    /// Offset of the element's header byte(s).
    @usableFromInline var elementOffset: Int
    /// Offset of the element's value.
    @usableFromInline var valueOffset: Int
    @usableFromInline var valueLength: Int

    @usableFromInline
    init(elementOffset: Int, valueOffset: Int, valueLength: Int) {
        self.elementOffset = elementOffset
        self.valueOffset = valueOffset
        self.valueLength = valueLength
    }

    @usableFromInline var end: Int { valueOffset + valueLength }
}

/// The extension block of a packet that has one in an RFC 8285 form. Parsing validated its elements,
/// so walking them needs no further checks.
@usableFromInline
struct HeaderExtensionBlock {
    @usableFromInline let form: HeaderExtensionForm
    /// Offset of the 4-byte extension header.
    @usableFromInline let headerOffset: Int
    @usableFromInline let dataLength: Int

    @usableFromInline
    init(form: HeaderExtensionForm, headerOffset: Int, dataLength: Int) {
        self.form = form
        self.headerOffset = headerOffset
        self.dataLength = dataLength
    }

    @usableFromInline var dataOffset: Int { headerOffset + 4 }
    @usableFromInline var dataEnd: Int { dataOffset + dataLength }

    /// Calls `body` with each element in order until it returns false.
    @inlinable
    func forEachElement(
        in storage: UnsafeMutableRawBufferPointer,
        _ body: (UInt8, HeaderExtensionElementLocation) -> Bool
    ) {
        var offset = dataOffset
        let end = dataEnd
        while offset < end {
            let id: UInt8
            let location: HeaderExtensionElementLocation
            switch form {
            case .oneByte:
                let byte = storage[offset]
                id = byte >> 4
                if id == 0 {
                    offset += 1
                    continue
                }
                if id == 15 { return }
                location = HeaderExtensionElementLocation(
                    elementOffset: offset, valueOffset: offset + 1, valueLength: Int(byte & 0x0F) + 1)
            case .twoByte:
                id = storage[offset]
                if id == 0 {
                    offset += 1
                    continue
                }
                location = HeaderExtensionElementLocation(
                    elementOffset: offset, valueOffset: offset + 2, valueLength: Int(storage[offset + 1]))
            }
            guard location.end <= end, body(id, location) else { return }
            offset = location.end
        }
    }

    /// Bytes from the start of the data to the end of the last element (trailing padding excluded).
    @inlinable
    func usedLength(in storage: UnsafeMutableRawBufferPointer) -> Int {
        var used = 0
        forEachElement(in: storage) { _, location in
            used = location.end - dataOffset
            return true
        }
        return used
    }
}

extension RTPPacket {
    @inlinable
    var extensionBlock: HeaderExtensionBlock? {
        guard let headerOffset = extensionHeaderOffset,
            let form = HeaderExtensionForm(profile: storage.uint16(at: headerOffset))
        else { return nil }
        return HeaderExtensionBlock(
            form: form, headerOffset: headerOffset, dataLength: 4 * Int(storage.uint16(at: headerOffset + 2)))
    }

    @inlinable
    func locateExtensionElement(id: UInt8) -> HeaderExtensionElementLocation? {
        guard let block = extensionBlock else { return nil }
        var found: HeaderExtensionElementLocation?
        block.forEachElement(in: storage) { elementID, location in
            if elementID == id {
                found = location
                return false
            }
            return true
        }
        return found
    }

    /// The value of the extension element with `id`, writable in place, or nil when the packet has none.
    @inlinable
    public func extensionElement(id: UInt8) -> UnsafeMutableRawBufferPointer? {
        guard id != 0, let location = locateExtensionElement(id: id) else { return nil }
        return UnsafeMutableRawBufferPointer(rebasing: storage[location.valueOffset..<location.end])
    }

    /// Calls `body` with the ID and value of every extension element, in order.
    public func forEachExtensionElement(_ body: (UInt8, UnsafeMutableRawBufferPointer) -> Void) {
        guard let block = extensionBlock else { return }
        block.forEachElement(in: storage) { id, location in
            body(id, UnsafeMutableRawBufferPointer(rebasing: storage[location.valueOffset..<location.end]))
            return true
        }
    }

    /// Returns the value slot of the element with `id`, `length` bytes long, for the caller to fill.
    /// An element of that length is reused in place; one of another length is replaced; a missing one is
    /// added, growing the packet into the buffer's tail room. A packet without an extension block gets
    /// one in `preferredForm`, or in the two-byte form when the one-byte form cannot carry the element.
    @discardableResult
    public mutating func reserveExtensionElement(
        id: UInt8,
        length valueLength: Int,
        preferredForm: HeaderExtensionForm = .oneByte
    ) throws(RTPPacketError) -> UnsafeMutableRawBufferPointer {
        guard id != 0 else { throw .extensionIDOutOfRange(id: id, form: extensionForm ?? preferredForm) }
        if let location = locateExtensionElement(id: id) {
            if location.valueLength == valueLength {
                return UnsafeMutableRawBufferPointer(rebasing: storage[location.valueOffset..<location.end])
            }
            // Refuse before removing anything, so a failed change leaves the packet as it was.
            if let form = extensionForm { try Self.checkCarriable(id: id, length: valueLength, form: form) }
            removeExtensionElement(id: id)
        }
        let valueOffset: Int
        if let block = extensionBlock {
            valueOffset = try appendElement(id: id, valueLength: valueLength, to: block)
        } else if hasExtension {
            throw .extensionProfileNotRFC8285(profile: extensionProfile ?? 0)
        } else {
            let form = preferredForm.canCarry(id: id, length: valueLength) ? preferredForm : .twoByte(appBits: 0)
            valueOffset = try insertBlock(form: form, id: id, valueLength: valueLength)
        }
        return UnsafeMutableRawBufferPointer(rebasing: storage[valueOffset..<(valueOffset + valueLength)])
    }

    /// Sets the extension element with `id` to `value`, adding it when missing.
    public mutating func setExtensionElement(
        id: UInt8,
        value: UnsafeRawBufferPointer,
        preferredForm: HeaderExtensionForm = .oneByte
    ) throws(RTPPacketError) {
        let slot = try reserveExtensionElement(id: id, length: value.count, preferredForm: preferredForm)
        if let source = value.baseAddress, let destination = slot.baseAddress {
            destination.copyMemory(from: source, byteCount: value.count)
        }
    }

    /// Removes the element with `id`, shrinking the packet; the extension block goes too when it
    /// empties. Returns whether there was such an element.
    @discardableResult
    public mutating func removeExtensionElement(id: UInt8) -> Bool {
        guard let block = extensionBlock, let location = locateExtensionElement(id: id) else { return false }
        let used = block.usedLength(in: storage)
        let elementLength = location.end - location.elementOffset
        storage.moveBytes(
            from: location.end, to: location.elementOffset, count: block.dataOffset + used - location.end)
        let newUsed = used - elementLength
        if block.usedLength(in: storage, limit: newUsed) == 0 {
            shiftTail(from: block.dataEnd, by: -(4 + block.dataLength))
            storage[0] &= ~0x10
            return true
        }
        let newDataLength = Self.roundedToWord(newUsed)
        zero(from: block.dataOffset + newUsed, to: block.dataOffset + newDataLength)
        shiftTail(from: block.dataEnd, by: newDataLength - block.dataLength)
        storage.setUInt16(UInt16(newDataLength / 4), at: block.headerOffset + 2)
        return true
    }

    private mutating func appendElement(
        id: UInt8, valueLength: Int, to block: HeaderExtensionBlock
    ) throws(RTPPacketError) -> Int {
        try Self.checkCarriable(id: id, length: valueLength, form: block.form)
        let used = block.usedLength(in: storage)
        let elementOffset = block.dataOffset + used
        let newUsed = used + block.form.elementHeaderLength + valueLength
        let newDataLength = Self.roundedToWord(newUsed)
        guard newDataLength / 4 <= Int(UInt16.max) else {
            throw .extensionLengthOutOfRange(length: valueLength, form: block.form)
        }
        try shiftTailChecked(from: block.dataEnd, by: newDataLength - block.dataLength)
        storage.setUInt16(UInt16(newDataLength / 4), at: block.headerOffset + 2)
        zero(from: block.dataOffset + newUsed, to: block.dataOffset + newDataLength)
        return writeElementHeader(id: id, valueLength: valueLength, form: block.form, at: elementOffset)
    }

    private mutating func insertBlock(form: HeaderExtensionForm, id: UInt8, valueLength: Int) throws(RTPPacketError)
        -> Int
    {
        try Self.checkCarriable(id: id, length: valueLength, form: form)
        let headerOffset = Self.fixedHeaderLength + 4 * csrcCount
        let used = form.elementHeaderLength + valueLength
        let dataLength = Self.roundedToWord(used)
        try shiftTailChecked(from: headerOffset, by: 4 + dataLength)
        storage[0] |= 0x10
        storage.setUInt16(form.profile, at: headerOffset)
        storage.setUInt16(UInt16(dataLength / 4), at: headerOffset + 2)
        zero(from: headerOffset + 4 + used, to: headerOffset + 4 + dataLength)
        return writeElementHeader(id: id, valueLength: valueLength, form: form, at: headerOffset + 4)
    }

    private func writeElementHeader(id: UInt8, valueLength: Int, form: HeaderExtensionForm, at offset: Int) -> Int {
        switch form {
        case .oneByte:
            storage[offset] = id << 4 | UInt8(valueLength - 1)
            return offset + 1
        case .twoByte:
            storage[offset] = id
            storage[offset + 1] = UInt8(valueLength)
            return offset + 2
        }
    }

    private static func checkCarriable(id: UInt8, length: Int, form: HeaderExtensionForm) throws(RTPPacketError) {
        switch form {
        case .oneByte:
            guard id >= 1 && id <= 14 else { throw .extensionIDOutOfRange(id: id, form: form) }
        case .twoByte:
            guard id >= 1 else { throw .extensionIDOutOfRange(id: id, form: form) }
        }
        guard form.canCarry(id: id, length: length) else { throw .extensionLengthOutOfRange(length: length, form: form) }
    }

    /// Moves every byte from `offset` to the end of the packet by `delta`, after checking the tail room.
    private mutating func shiftTailChecked(from offset: Int, by delta: Int) throws(RTPPacketError) {
        guard length + delta <= storage.count else {
            throw .noRoom(needed: length + delta, capacity: storage.count)
        }
        shiftTail(from: offset, by: delta)
    }

    private mutating func shiftTail(from offset: Int, by delta: Int) {
        storage.moveBytes(from: offset, to: offset + delta, count: length - offset)
        length += delta
        headerLength += delta
    }

    private func zero(from start: Int, to end: Int) {
        for index in start..<end { storage[index] = 0 }
    }

    @inlinable
    static func roundedToWord(_ count: Int) -> Int { (count + 3) & ~3 }
}

extension HeaderExtensionBlock {
    /// Like `usedLength(in:)`, but over the first `limit` bytes of the data only.
    @usableFromInline
    func usedLength(in storage: UnsafeMutableRawBufferPointer, limit: Int) -> Int {
        HeaderExtensionBlock(form: form, headerOffset: headerOffset, dataLength: limit).usedLength(in: storage)
    }
}
