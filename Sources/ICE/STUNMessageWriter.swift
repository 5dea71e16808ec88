/// Writes the STUN messages of ICE into a caller's buffer and returns their length.
///
/// A buffer too small for the message is a programmer error and traps: a success response needs
/// `bindingSuccessByteCount` bytes, an error response 36 plus its reason phrase (padded to 4) plus 24
/// with MESSAGE-INTEGRITY, a request 80 plus its username (padded to 4).
/// Every message ends in FINGERPRINT, which RFC 8445 section 7.2.2 requires of ICE.
public enum STUNMessageWriter {
    /// Bytes of a success response from `bindingSuccess`.
    public static let bindingSuccessByteCount = 64

    /// Writes a Binding success response: XOR-MAPPED-ADDRESS (IPv4), MESSAGE-INTEGRITY with
    /// `integrityKey`, FINGERPRINT. `mappedIPv4` is in host byte order.
    ///
    /// Returns the length, or 0 when OpenSSL could not compute the HMAC (nothing should be sent).
    public static func bindingSuccess(
        transactionID: STUNTransactionID,
        mappedIPv4: UInt32,
        mappedPort: UInt16,
        integrityKey: [UInt8],
        into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        var builder = STUNMessageBuilder(
            into: buffer, messageType: STUNMessageClass.successResponse.messageType(method: .binding),
            transactionID: transactionID)
        builder.appendXORMappedIPv4(address: mappedIPv4, port: mappedPort)
        guard builder.appendMessageIntegrity(key: integrityKey) else { return 0 }
        builder.appendFingerprint()
        return builder.count
    }

    /// Writes a Binding error response (400 Bad Request, 401 Unauthorized, 487 Role Conflict, ...)
    /// with ERROR-CODE, MESSAGE-INTEGRITY when `integrityKey` is given, and FINGERPRINT.
    ///
    /// Pass no key when the request itself failed authentication (RFC 8489 section 9.1.3): the
    /// sender could not verify a response keyed with a password it did not use.
    /// Returns the length, or 0 when OpenSSL could not compute the HMAC.
    public static func bindingError(
        transactionID: STUNTransactionID,
        code: Int,
        reason: String,
        integrityKey: [UInt8]?,
        into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        var builder = STUNMessageBuilder(
            into: buffer, messageType: STUNMessageClass.errorResponse.messageType(method: .binding),
            transactionID: transactionID)
        builder.appendErrorCode(code, reason: reason)
        if let integrityKey {
            guard builder.appendMessageIntegrity(key: integrityKey) else { return 0 }
        }
        builder.appendFingerprint()
        return builder.count
    }

    /// Writes a Binding request as a controlling ICE agent sends it (for tests and clients): USERNAME,
    /// PRIORITY, ICE-CONTROLLING, USE-CANDIDATE when `useCandidate`, MESSAGE-INTEGRITY keyed with the
    /// peer's password, FINGERPRINT.
    ///
    /// `username` is "peer ufrag:own ufrag" (RFC 8445 section 7.2.2).
    /// Returns the length, or 0 when OpenSSL could not compute the HMAC.
    public static func bindingRequest(
        transactionID: STUNTransactionID,
        username: String,
        priority: UInt32,
        controllingTieBreaker: UInt64,
        useCandidate: Bool,
        integrityKey: [UInt8],
        into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        var builder = STUNMessageBuilder(
            into: buffer, messageType: STUNMessageClass.request.messageType(method: .binding),
            transactionID: transactionID)
        builder.append(type: STUNAttributeType.username, utf8: username)
        builder.append(type: STUNAttributeType.priority, uint32: priority)
        builder.append(type: STUNAttributeType.iceControlling, uint64: controllingTieBreaker)
        if useCandidate {
            builder.appendFlag(type: STUNAttributeType.useCandidate)
        }
        guard builder.appendMessageIntegrity(key: integrityKey) else { return 0 }
        builder.appendFingerprint()
        return builder.count
    }

    /// Writes a Binding indication with FINGERPRINT only: the keepalive of RFC 8445 section 11.
    public static func bindingIndication(
        transactionID: STUNTransactionID, into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        var builder = STUNMessageBuilder(
            into: buffer, messageType: STUNMessageClass.indication.messageType(method: .binding),
            transactionID: transactionID)
        builder.appendFingerprint()
        return builder.count
    }
}
