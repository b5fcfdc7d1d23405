import CGIF
import PluginAPI
import PluginKit

/// Walks a GIF's records and composites one frame at a time onto a `GIFCanvas`, so that only the canvas, one
/// row of indices and (for disposal 3) one saved rectangle are ever in memory, however long the animation.
final class GIFAnimation {
    let reader: GIFReader
    private let limits: ip_limits
    /// Creates the canvas once the first frame has fixed its size (after the limits are checked).
    private let makeCanvas: (_ width: Int, _ height: Int) throws -> GIFCanvas
    private(set) var canvas: GIFCanvas?
    /// Frames composited so far.
    private(set) var framesRead = 0
    /// The loop extension's stored repetition count, once seen.
    private(set) var repetitions: Int?
    private var pendingControl: GraphicsControlBlock?
    /// An image record already consumed by `hasMoreFrames` and not yet composited.
    private var imageRecordPending = false
    private var reachedEnd = false
    /// A failure met while reading ahead; every later call reports it (the reader's position is then unknown).
    private var failure: Error?
    private var line: [UInt8] = []

    struct Frame {
        var index: Int
        /// The frame's delay as browsers play it (see `GIFTiming`).
        var durationMilliseconds: Int
    }

    init(data: UnsafeBufferPointer<UInt8>, limits: ip_limits,
         makeCanvas: @escaping (_ width: Int, _ height: Int) throws -> GIFCanvas) throws {
        reader = try GIFReader(data)
        self.limits = limits
        self.makeCanvas = makeCanvas
    }

    /// True when another frame follows (reads ahead over extensions, at most up to the next image descriptor).
    func hasMoreFrames() throws -> Bool {
        if let failure { throw failure }
        if imageRecordPending { return true }
        if reachedEnd { return false }
        do {
            return try readAhead()
        } catch {
            failure = error
            throw error
        }
    }

    private func readAhead() throws -> Bool {
        while true {
            switch try reader.nextRecord() {
            case .image:
                imageRecordPending = true
                return true
            case .graphicsControl(let gcb): pendingControl = gcb
            case .loop(let count): repetitions = count
            case .otherExtension: continue
            case .end:
                reachedEnd = true
                return false
            }
        }
    }

    /// Composites the next frame onto the canvas; nil after the last one.
    func compositeNext(call: OpaquePointer?) throws -> Frame? {
        guard try hasMoreFrames() else { return nil }
        imageRecordPending = false
        let index = framesRead
        if limits.max_frames > 0, index >= Int(limits.max_frames) {
            throw PluginFailure.limitExceeded("the animation has more than \(limits.max_frames) frames (the frame limit)")
        }
        try Host.checkCancellation(call)
        let header = try reader.readFrameHeader(index: index)
        let control = pendingControl
        pendingControl = nil
        let canvas = try canvasForFirstFrame(header)
        canvas.beginFrame(header, disposal: control?.DisposalMode ?? DISPOSAL_UNSPECIFIED)
        try draw(header, transparent: Int(control?.TransparentColor ?? NO_TRANSPARENT_COLOR), on: canvas, index: index, call: call)
        framesRead += 1
        return Frame(index: index, durationMilliseconds: GIFTiming.milliseconds(centiseconds: Int(control?.DelayTime ?? 0)))
    }

    /// Why a GIF without any image cannot be decoded: it stops early, or it really has none.
    static func noImageFailure(_ reader: GIFReader) -> PluginFailure {
        reader.endedWithoutTrailer
            ? .truncated("the GIF ends before its first image")
            : .invalidData("the GIF contains no image")
    }

    /// The canvas, created at the first frame: the logical screen, grown to hold the first frame (as Chromium does,
    /// which also rescues files whose screen size is 0). Later frames are clipped.
    private func canvasForFirstFrame(_ header: GIFFrameHeader) throws -> GIFCanvas {
        if let canvas { return canvas }
        let width = max(reader.screenWidth, header.left + header.width)
        let height = max(reader.screenHeight, header.top + header.height)
        guard width > 0, height > 0 else { throw PluginFailure.invalidData("the GIF's canvas is empty (0x0)") }
        try GIFLimits.check(width: width, height: height, limits)
        let made = try makeCanvas(width, height)
        canvas = made
        return made
    }

    /// Decodes the frame's rows (in interlace order when needed) and draws the visible ones. Once no visible row
    /// is left, the rest of the LZW data is skipped undecoded.
    private func draw(_ header: GIFFrameHeader, transparent: Int, on canvas: GIFCanvas, index: Int, call: OpaquePointer?) throws {
        let rect = canvas.clip(header)
        guard header.width > 0, header.height > 0, !rect.isEmpty else {
            try reader.skipImageData(frame: index)
            return
        }
        if line.count < header.width { line = [UInt8](repeating: 0, count: header.width) }
        var visibleRowsLeft = rect.y1 - rect.y0
        try header.palette.withUnsafeBufferPointer { palette in
            try line.withUnsafeMutableBufferPointer { buffer in
                let row = buffer.baseAddress!
                for (count, y) in GIFRowOrder(height: header.height, interlaced: header.interlaced).enumerated() {
                    if count & 63 == 0 { try Host.checkCancellation(call) }
                    try reader.readLine(row, count: header.width, frame: index)
                    let canvasY = header.top + y
                    guard canvasY < canvas.height else { continue }
                    canvas.drawRow(row, y: canvasY, header: header, transparent: transparent, palette: palette.baseAddress!)
                    visibleRowsLeft -= 1
                    if visibleRowsLeft == 0, count + 1 < header.height {
                        try reader.skipImageData(frame: index)
                        return
                    }
                }
            }
        }
    }
}

/// The order in which a frame's rows arrive: top to bottom, or the four interlace passes
/// (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
struct GIFRowOrder: Sequence, IteratorProtocol {
    let height: Int
    let interlaced: Bool
    private var pass = 0
    private var y = 0

    init(height: Int, interlaced: Bool) {
        self.height = height
        self.interlaced = interlaced
    }

    private static let passes: [(start: Int, step: Int)] = [(0, 8), (4, 8), (2, 4), (1, 2)]

    mutating func next() -> Int? {
        guard interlaced else {
            defer { y += 1 }
            return y < height ? y : nil
        }
        while pass < 4 {
            if y < height {
                defer { y += Self.passes[pass].step }
                return y
            }
            pass += 1
            if pass < 4 { y = Self.passes[pass].start }
        }
        return nil
    }
}

/// How long browsers show a frame.
enum GIFTiming {
    /// Delays under 20 ms (0 or 1 centisecond, common in files meant to "play as fast as possible") become
    /// 100 ms, as in Chromium, Firefox and Safari; anything else is the stated delay.
    static func milliseconds(centiseconds: Int) -> Int {
        let ms = centiseconds * 10
        return ms < 20 ? 100 : ms
    }
}

/// The request's limits applied to a canvas size, before anything is allocated.
enum GIFLimits {
    static func check(width: Int, height: Int, _ limits: ip_limits) throws {
        if limits.max_dimension > 0, width > Int(limits.max_dimension) || height > Int(limits.max_dimension) {
            throw PluginFailure.limitExceeded("the GIF canvas \(width)x\(height) exceeds the dimension limit of \(limits.max_dimension)")
        }
        if limits.max_pixels > 0, UInt64(width) * UInt64(height) > limits.max_pixels {
            throw PluginFailure.limitExceeded("the GIF canvas \(width)x\(height) exceeds the pixel limit of \(limits.max_pixels)")
        }
    }
}
