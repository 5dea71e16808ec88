extension KeyedDecodingContainer {
    /// Decodes a fixed-width integer, naming the field and the allowed range when the number does
    /// not fit (Foundation's own error for that says only "not valid JSON").
    func decodeInteger<Value: FixedWidthInteger>(_: Value.Type, forKey key: Key) throws -> Value {
        let number = try decode(Int64.self, forKey: key)
        guard let value = Value(exactly: number) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "\(number) is out of range \(Value.min)...\(Value.max)")
        }
        return value
    }

    func decodeIntegerIfPresent<Value: FixedWidthInteger>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        try contains(key) && !decodeNil(forKey: key) ? decodeInteger(type, forKey: key) : nil
    }
}
