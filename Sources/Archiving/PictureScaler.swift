import CAVFormat
import CVPX

/// Scales one stream's pictures onto the canvas, keeping its libswscale context while the sizes stay.
final class PictureScaler {
    private var context: OpaquePointer?

    deinit {
        sws_freeContext(context)
    }

    /// Scales `picture` (I420) into `rect` of `canvas`.
    func draw(_ picture: UnsafePointer<vpx_image_t>, into rect: GridLayout.Rect, of canvas: Canvas) {
        let source = picture.pointee
        guard source.fmt == VPX_IMG_FMT_I420 else { return }
        context = sws_getCachedContext(
            context, Int32(source.d_w), Int32(source.d_h), AV_PIX_FMT_YUV420P, Int32(rect.width), Int32(rect.height),
            AV_PIX_FMT_YUV420P,
            SWS_BILINEAR, nil, nil, nil)
        guard let context else { return }
        let target = canvas.image.pointee
        let sourcePlanes: [UnsafePointer<UInt8>?] = [
            UnsafePointer(source.planes.0), UnsafePointer(source.planes.1), UnsafePointer(source.planes.2), nil,
        ]
        let sourceStrides: [Int32] = [source.stride.0, source.stride.1, source.stride.2, 0]
        let targetPlanes: [UnsafeMutablePointer<UInt8>?] = [
            target.planes.0! + rect.y * Int(target.stride.0) + rect.x,
            target.planes.1! + rect.y / 2 * Int(target.stride.1) + rect.x / 2,
            target.planes.2! + rect.y / 2 * Int(target.stride.2) + rect.x / 2, nil,
        ]
        let targetStrides: [Int32] = [target.stride.0, target.stride.1, target.stride.2, 0]
        _ = sws_scale(context, sourcePlanes, sourceStrides, 0, Int32(source.d_h), targetPlanes, targetStrides)
    }
}
