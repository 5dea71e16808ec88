// Typed accessors for the header extensions an SFU uses. IDs are negotiated per session, so each
// accessor takes the ID the caller's extension map assigned.

extension RTPPacket {
    /// The `mid` value, or nil when absent. Short identifiers fit Swift's inline string storage, so this
    /// does not allocate for typical values of up to 15 bytes.
    public func mid(id: UInt8) -> String? {
        extensionElement(id: id).map { String(decoding: UnsafeRawBufferPointer($0), as: UTF8.self) }
    }

    public mutating func setMid(_ value: String, id: UInt8) throws(RTPPacketError) {
        try setStringElement(value, id: id)
    }

    /// The simulcast `rid` (RTP stream ID), or nil when absent.
    public func rtpStreamID(id: UInt8) -> String? {
        mid(id: id)
    }

    public mutating func setRTPStreamID(_ value: String, id: UInt8) throws(RTPPacketError) {
        try setStringElement(value, id: id)
    }

    /// The repaired RTP stream ID of an RTX packet, or nil when absent.
    public func repairedRTPStreamID(id: UInt8) -> String? {
        mid(id: id)
    }

    public mutating func setRepairedRTPStreamID(_ value: String, id: UInt8) throws(RTPPacketError) {
        try setStringElement(value, id: id)
    }

    /// The abs-send-time value, or nil when absent or not 3 bytes long.
    @inlinable
    public func absoluteSendTime(id: UInt8) -> AbsoluteSendTime? {
        guard let value = extensionElement(id: id), value.count == 3 else { return nil }
        return AbsoluteSendTime(value: value.uint24(at: 0))
    }

    @inlinable
    public mutating func setAbsoluteSendTime(_ time: AbsoluteSendTime, id: UInt8) throws(RTPPacketError) {
        try reserveExtensionElement(id: id, length: 3).setUInt24(time.value, at: 0)
    }

    /// Replaces the abs-send-time value when the packet carries one, in place; never grows the packet.
    /// Returns whether it did.
    @inlinable
    @discardableResult
    public func overwriteAbsoluteSendTime(_ time: AbsoluteSendTime, id: UInt8) -> Bool {
        guard let value = extensionElement(id: id), value.count == 3 else { return false }
        value.setUInt24(time.value, at: 0)
        return true
    }

    /// The transport-wide sequence number, or nil when absent or not 2 bytes long.
    @inlinable
    public func transportSequenceNumber(id: UInt8) -> UInt16? {
        guard let value = extensionElement(id: id), value.count == 2 else { return nil }
        return value.uint16(at: 0)
    }

    @inlinable
    public mutating func setTransportSequenceNumber(_ sequenceNumber: UInt16, id: UInt8) throws(RTPPacketError) {
        try reserveExtensionElement(id: id, length: 2).setUInt16(sequenceNumber, at: 0)
    }

    /// The RFC 6464 audio level, or nil when absent. Only the first byte is read, because some senders
    /// pad the element.
    @inlinable
    public func audioLevel(id: UInt8) -> AudioLevelIndication? {
        guard let value = extensionElement(id: id), value.count >= 1 else { return nil }
        return AudioLevelIndication(byte: value[0])
    }

    @inlinable
    public mutating func setAudioLevel(_ level: AudioLevelIndication, id: UInt8) throws(RTPPacketError) {
        try reserveExtensionElement(id: id, length: 1)[0] = level.byte
    }

    private mutating func setStringElement(_ value: String, id: UInt8) throws(RTPPacketError) {
        var value = value
        let result = value.withUTF8 { utf8 -> Result<Void, RTPPacketError> in
            do throws(RTPPacketError) {
                try setExtensionElement(id: id, value: UnsafeRawBufferPointer(utf8))
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }
}
