import CVPX

/// The picture a synthetic publisher sends: a gradient that moves every frame (so delta frames carry
/// real data) and, along the top edge, the frame counter as 16 black or white 16×16 blocks, so a
/// subscriber that decodes can check it got the frames it was sent, in order.
public enum TestPattern {
    /// Bits of the counter; it wraps at 2^16.
    public static let counterBits = 16
    static let blockSize = 16
    static let dark: UInt8 = 16
    static let light: UInt8 = 235

    /// The narrowest picture that has room for the counter.
    public static let minimumWidth = counterBits * blockSize
    public static let minimumHeight = blockSize

    /// Paints frame `counter` into an I420 image; a `flash` frame is white below the counter's blocks.
    public static func paint(_ image: inout vpx_image_t, counter: Int, flash: Bool = false) {
        let width = Int(image.d_w)
        let height = Int(image.d_h)
        let lumaStride = Int(image.stride.0)
        let luma = image.planes.0!
        for row in 0..<height {
            let line = luma + row * lumaStride
            for column in 0..<width {
                line[column] = flash && row >= blockSize ? light : UInt8(truncatingIfNeeded: (column &+ 2 &* row &+ 3 &* counter) % 200 &+ 28)
            }
        }
        for bit in 0..<counterBits {
            let value = (counter >> (counterBits - 1 - bit)) & 1 == 1 ? light : dark
            for row in 0..<blockSize {
                let line = luma + row * lumaStride + bit * blockSize
                for column in 0..<blockSize { line[column] = value }
            }
        }
        for (plane, stride) in [(image.planes.1!, Int(image.stride.1)), (image.planes.2!, Int(image.stride.2))] {
            for row in 0..<((height + 1) / 2) {
                let line = plane + row * stride
                for column in 0..<((width + 1) / 2) { line[column] = 128 }
            }
        }
    }

    /// The counter painted into a decoded image, read from the middle of each block.
    public static func readCounter(from image: vpx_image_t) -> Int? {
        guard Int(image.d_w) >= minimumWidth, Int(image.d_h) >= minimumHeight, let luma = image.planes.0 else { return nil }
        let stride = Int(image.stride.0)
        var counter = 0
        for bit in 0..<counterBits {
            var sum = 0
            for row in 4..<12 {
                for column in 4..<12 { sum += Int(luma[row * stride + bit * blockSize + column]) }
            }
            counter = counter << 1 | (sum / 64 > 125 ? 1 : 0)
        }
        return counter
    }
}
