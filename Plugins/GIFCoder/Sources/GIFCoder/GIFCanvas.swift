#if canImport(Glibc)
import Glibc
#endif
import CGIF
import PluginAPI
import PluginKit

/// The full-size RGBA8 canvas an animation is composited on, with the disposal rules browsers apply.
///
/// - The canvas starts fully transparent (the logical-screen background colour is ignored, as browsers do).
/// - Disposal 0 (unspecified) and 1 (do not dispose): the frame stays.
/// - Disposal 2 (background): the frame's rectangle is cleared to transparent before the next frame.
/// - Disposal 3 (previous): the rectangle is restored to what it was before the frame was drawn.
/// A frame's transparent index leaves the canvas pixel as it is. Frames are clipped to the canvas.
final class GIFCanvas {
    let width: Int
    let height: Int
    let stride: Int
    let pixels: UnsafeMutablePointer<UInt8>
    private let ownsPixels: Bool

    /// The disposal the last drawn frame asks for, applied when the next frame begins.
    private var pendingRect: Rect?
    private var pendingMode: Int32 = DISPOSAL_UNSPECIFIED
    /// For disposal 3: the pixels under the last frame's rectangle before it was drawn (rows of rect width).
    private var saved: [UInt8] = []

    struct Rect {
        var x0: Int, y0: Int, x1: Int, y1: Int
        var isEmpty: Bool { x0 >= x1 || y0 >= y1 }
    }

    /// A canvas over caller-owned memory (a host buffer that becomes the result of `decode`).
    init(width: Int, height: Int, stride: Int, pixels: UnsafeMutablePointer<UInt8>) {
        self.width = width
        self.height = height
        self.stride = stride
        self.pixels = pixels
        ownsPixels = false
    }

    /// A canvas in plugin memory (the frame iterator's, kept between calls). calloc gives transparent black and
    /// lets an allocation failure surface as NO_MEMORY instead of a crash.
    init(width: Int, height: Int) throws {
        let (stride, overflowA) = width.multipliedReportingOverflow(by: 4)
        let (bytes, overflowB) = stride.multipliedReportingOverflow(by: height)
        guard !overflowA, !overflowB, let memory = calloc(bytes, 1) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "cannot allocate a \(width)x\(height) canvas")
        }
        self.width = width
        self.height = height
        self.stride = stride
        pixels = memory.assumingMemoryBound(to: UInt8.self)
        ownsPixels = true
    }

    deinit { if ownsPixels { free(pixels) } }

    /// The part of a frame's rectangle that lies on the canvas.
    func clip(_ header: GIFFrameHeader) -> Rect {
        Rect(x0: min(header.left, width), y0: min(header.top, height),
             x1: min(header.left + header.width, width), y1: min(header.top + header.height, height))
    }

    /// Applies the previous frame's disposal, then remembers this frame's (saving the pixels it will cover for
    /// disposal 3).
    func beginFrame(_ header: GIFFrameHeader, disposal: Int32) {
        if let rect = pendingRect, !rect.isEmpty {
            switch pendingMode {
            case DISPOSE_BACKGROUND: fill(rect, with: nil)
            case DISPOSE_PREVIOUS: fill(rect, with: saved)
            default: break
            }
        }
        let rect = clip(header)
        pendingRect = rect
        pendingMode = disposal
        saved = disposal == DISPOSE_PREVIOUS && !rect.isEmpty ? copy(rect) : []
    }

    /// Draws one decoded row of palette indices at canvas row `y` (already offset by the frame's top).
    func drawRow(_ line: UnsafePointer<UInt8>, y: Int, header: GIFFrameHeader, transparent: Int, palette: UnsafePointer<UInt32>) {
        guard y >= 0, y < height else { return }
        let x0 = header.left, x1 = min(header.left + header.width, width)
        guard x0 < x1 else { return }
        let row = UnsafeMutableRawPointer(pixels + y * stride)
        for x in x0..<x1 {
            let index = Int(line[x - x0])
            if index == transparent { continue }
            row.storeBytes(of: palette[index].littleEndian, toByteOffset: x * 4, as: UInt32.self)
        }
    }

    /// Copies the canvas into `target` (a host buffer of the same size).
    func copy(to target: UnsafeMutablePointer<UInt8>, stride targetStride: Int) {
        for y in 0..<height {
            (target + y * targetStride).update(from: pixels + y * stride, count: width * 4)
        }
    }

    private func copy(_ rect: Rect) -> [UInt8] {
        let rowBytes = (rect.x1 - rect.x0) * 4
        var result = [UInt8](repeating: 0, count: rowBytes * (rect.y1 - rect.y0))
        result.withUnsafeMutableBufferPointer { out in
            for y in rect.y0..<rect.y1 {
                (out.baseAddress! + (y - rect.y0) * rowBytes).update(from: pixels + y * stride + rect.x0 * 4, count: rowBytes)
            }
        }
        return result
    }

    /// Writes `source` (rows of the rect's width) into the rect, or clears it to transparent when nil.
    private func fill(_ rect: Rect, with source: [UInt8]?) {
        let rowBytes = (rect.x1 - rect.x0) * 4
        for y in rect.y0..<rect.y1 {
            let target = pixels + y * stride + rect.x0 * 4
            if let source {
                source.withUnsafeBufferPointer { target.update(from: $0.baseAddress! + (y - rect.y0) * rowBytes, count: rowBytes) }
            } else {
                target.update(repeating: 0, count: rowBytes)
            }
        }
    }
}
