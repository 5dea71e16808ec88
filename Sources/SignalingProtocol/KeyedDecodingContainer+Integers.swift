extension KeyedDecodingContainer {
    /// Decodes a fixed-width integer, naming the field and the allowed range when the number does
    /// not fit (Foundation's own error for that says only "not valid JSON").
    func decodeInteger<Value: FixedWidthInteger>(_: Value.Type, forKey key: Key) throws -> Value {
        let number: Int64
        do {
            number = try decode(Int64.self, forKey: key)
        } catch let error as DecodingError {
            throw error
        } catch {
            // Foundation refuses a number with a fraction (2.5) or too large for Int64 with an error
            // of its own that reaches the caller without a coding path, as if the whole text were broken.
            throw DecodingError.typeMismatch(
                Value.self, DecodingError.Context(codingPath: codingPath + [key], debugDescription: "not an integer"))
        }
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
