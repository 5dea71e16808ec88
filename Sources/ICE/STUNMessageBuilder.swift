/// Appends attributes to a STUN message being written into a caller's buffer, keeping the header's
/// length field current after every attribute so MESSAGE-INTEGRITY and FINGERPRINT, which cover the
/// header, can be computed in place.
///
/// Running out of room is a programmer error (the caller sizes its scratch buffer for the messages
/// it writes) and traps.
struct STUNMessageBuilder {
    let buffer: UnsafeMutableRawBufferPointer
    /// Bytes written so far, header included.
    private(set) var count: Int

    /// Starts a message of `messageType` with `transactionID` and no attributes.
    init(into buffer: UnsafeMutableRawBufferPointer, messageType: UInt16, transactionID: STUNTransactionID) {
        precondition(buffer.count >= STUNMessage.headerByteCount, "STUN buffer of \(buffer.count) bytes is too small")
        self.buffer = buffer
        buffer.setUInt16(messageType & 0x3FFF, at: 0)
        buffer.setUInt16(0, at: 2)
        buffer.setUInt32(STUNMessage.magicCookie, at: 4)
        transactionID.write(into: buffer, at: 8)
        count = STUNMessage.headerByteCount
    }

    /// Appends an attribute with a `length`-byte value that `writeValue` fills; the padding is zeroed.
    mutating func append(type: UInt16, length: Int, _ writeValue: (UnsafeMutableRawBufferPointer) -> Void) {
        let padded = (length + 3) & ~3
        precondition(
            length <= Int(UInt16.max) && buffer.count - count >= 4 + padded,
            "STUN buffer of \(buffer.count) bytes has no room for attribute 0x\(hex16(type))")
        buffer.setUInt16(type, at: count)
        buffer.setUInt16(UInt16(length), at: count + 2)
        let valueStart = count + 4
        count = valueStart + padded
        // Before the value: MESSAGE-INTEGRITY and FINGERPRINT cover a header that counts themselves.
        buffer.setUInt16(UInt16(count - STUNMessage.headerByteCount), at: 2)
        writeValue(UnsafeMutableRawBufferPointer(rebasing: buffer[valueStart..<valueStart + length]))
        for index in (valueStart + length)..<(valueStart + padded) {
            buffer[index] = 0
        }
    }

    mutating func appendFlag(type: UInt16) {
        append(type: type, length: 0) { _ in }
    }

    mutating func append(type: UInt16, uint32 value: UInt32) {
        append(type: type, length: 4) { $0.setUInt32(value, at: 0) }
    }

    mutating func append(type: UInt16, uint64 value: UInt64) {
        append(type: type, length: 8) { $0.setUInt64(value, at: 0) }
    }

    /// Appends the UTF-8 bytes of `text` as the value.
    mutating func append(type: UInt16, utf8 text: String) {
        let utf8 = text.utf8
        append(type: type, length: utf8.count) { value in
            for (index, byte) in utf8.enumerated() {
                value[index] = byte
            }
        }
    }

    /// Appends `bytes` as the value.
    mutating func append(type: UInt16, bytes: UnsafeRawBufferPointer) {
        append(type: type, length: bytes.count) { value in
            value.copyMemory(from: bytes)
        }
    }

    /// Appends an IPv4 XOR-MAPPED-ADDRESS; `address` is in host byte order. Layout beside
    /// `STUNMessage.parseXORMappedAddress`.
    mutating func appendXORMappedIPv4(address: UInt32, port: UInt16) {
        append(type: STUNAttributeType.xorMappedAddress, length: 8) { value in
            value[0] = 0
            value[1] = 0x01
            value.setUInt16(port ^ UInt16(truncatingIfNeeded: STUNMessage.magicCookie >> 16), at: 2)
            value.setUInt32(address ^ STUNMessage.magicCookie, at: 4)
        }
    }

    /// Appends ERROR-CODE with `code` (300 to 699) and `reason`. Layout beside
    /// `STUNMessage.parseErrorCode`.
    mutating func appendErrorCode(_ code: Int, reason: String) {
        precondition((300...699).contains(code), "STUN error code \(code) is not within 300...699")
        let utf8 = reason.utf8
        // RFC 8489 section 14.8: fewer than 128 characters, at most 763 bytes.
        precondition(utf8.count <= 763, "STUN reason phrase of \(utf8.count) bytes is longer than 763")
        append(type: STUNAttributeType.errorCode, length: 4 + utf8.count) { value in
            value[0] = 0
            value[1] = 0
            value[2] = UInt8(code / 100)
            value[3] = UInt8(code % 100)
            for (index, byte) in utf8.enumerated() {
                value[4 + index] = byte
            }
        }
    }

    /// Appends MESSAGE-INTEGRITY over everything written so far (RFC 8489 section 14.5); false when
    /// OpenSSL failed, and then the message must not be sent.
    mutating func appendMessageIntegrity(key: [UInt8]) -> Bool {
        let covered = count
        let buffer = buffer
        var succeeded = false
        // The length field must count the MESSAGE-INTEGRITY attribute before the HMAC is taken.
        append(type: STUNAttributeType.messageIntegrity, length: HMACSHA1.byteCount) { value in
            succeeded = HMACSHA1.authenticate(
                key: key, data: UnsafeRawBufferPointer(rebasing: buffer[0..<covered]), into: value.baseAddress!)
        }
        return succeeded
    }

    /// Appends FINGERPRINT over everything written so far (RFC 8489 section 14.7); it must be last.
    mutating func appendFingerprint() {
        let covered = count
        let buffer = buffer
        append(type: STUNAttributeType.fingerprint, length: 4) { value in
            let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<covered]))
            value.setUInt32(crc ^ STUNMessage.fingerprintXOR, at: 0)
        }
    }
}
