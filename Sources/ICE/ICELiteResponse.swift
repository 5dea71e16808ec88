/// A Binding success response the ICE-lite agent asks its caller to send: to the check's source,
/// with that source as the mapped address.
public struct ICELiteResponse: Hashable, Sendable {
    /// The transaction ID of the check being answered.
    public var transactionID: STUNTransactionID
    /// The MESSAGE-INTEGRITY key: the password of the local credentials the check was verified
    /// with. The agent keeps the array, so passing it on does not allocate.
    public var integrityKey: [UInt8]

    public init(transactionID: STUNTransactionID, integrityKey: [UInt8]) {
        self.transactionID = transactionID
        self.integrityKey = integrityKey
    }

    /// Writes the response with `mappedIPv4` (host byte order) and `mappedPort`, the check's source,
    /// into `buffer` (at least `STUNMessageWriter.bindingSuccessByteCount` bytes) and returns its
    /// length, or 0 when OpenSSL failed.
    public func write(mappedIPv4: UInt32, mappedPort: UInt16, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        STUNMessageWriter.bindingSuccess(
            transactionID: transactionID, mappedIPv4: mappedIPv4, mappedPort: mappedPort,
            integrityKey: integrityKey, into: buffer)
    }
}
