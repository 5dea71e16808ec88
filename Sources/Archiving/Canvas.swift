import CVPX

/// The I420 picture a composed archive paints each output frame on.
final class Canvas {
    let width: Int
    let height: Int
    let image: UnsafeMutablePointer<vpx_image_t>

    init(width: Int, height: Int) throws(ArchiveWriteError) {
        self.width = width
        self.height = height
        guard let image = vpx_img_alloc(nil, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 32) else {
            throw .codec("canvas of \(width)x\(height): out of memory")
        }
        self.image = image
    }

    deinit {
        vpx_img_free(image)
    }

    /// Paints it black.
    func clear() {
        let planes = [
            (image.pointee.planes.0!, Int(image.pointee.stride.0), height, UInt8(16)),
            (image.pointee.planes.1!, Int(image.pointee.stride.1), (height + 1) / 2, UInt8(128)),
            (image.pointee.planes.2!, Int(image.pointee.stride.2), (height + 1) / 2, UInt8(128)),
        ]
        for (plane, stride, rows, value) in planes { plane.update(repeating: value, count: stride * rows) }
    }
}
