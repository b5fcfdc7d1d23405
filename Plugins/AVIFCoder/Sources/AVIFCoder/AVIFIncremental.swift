import CAVIF
import PluginAPI
import PluginKit

/// incremental_open / update / close: previews of an AVIF file while it downloads.
///
/// One streaming libavif decoder (AVIFDecoderSession over an AVIFStreamInput) lives across updates; each update
/// appends the new bytes, retries avifDecoderParse until the header is complete, then decodes as far as the bytes
/// allow. What a preview shows:
/// - a layered ("progressive", a1lx) file: the best layer decoded so far, each layer being a frame in libavif's
///   progressive mode; the layer is copied (avifImageCopy) so it can be drawn again while the next one waits;
/// - a grid image: the rows of the cells decoded so far (avifDecoderDecodedRowCount), the rest transparent
///   (AVIFPartialRendering);
/// - any other still image, or frame 0 of a sequence: nothing until all of its data is there.
/// Previews only exist for page 0 / frame 0 (other requests answer NEED_MORE until the final update decides).
///
/// The final update gives exactly what `decode` gives for the same bytes: the streaming decoder finishes a still
/// (or frame 0) it was decoding and draws it like `decode` does; everything else — a layered file, another frame,
/// any failure — runs `decode` itself on the final bytes. A layered file must: libavif 0.11 cannot decode the last
/// layer of tiger_3layer_1res.avif in progressive mode ("Decoding of color planes failed"), while the one-shot
/// decode, which asks dav1d for the best layer at once, succeeds.
final class AVIFIncrementalDecoder {
    private var options: DecodeOptionsCopy
    private let input: AVIFStreamInput
    private let session: AVIFDecoderSession
    private var parsed = false
    /// libavif's progressive mode is active: imageCount is the number of layers.
    private var layered = false
    /// The wanted image (a still or frame 0) is fully decoded in `session.image`.
    private var complete = false
    /// A copy of the best layer decoded so far (layered files only).
    private var bestLayer: UnsafeMutablePointer<avifImage>?
    private var layersDecoded = 0
    /// A layer after the first failed to decode: previews stay at the last good layer.
    private var layersStalled = false
    /// An error already reported for these bytes; later non-final updates repeat it.
    private var failure: PluginFailure?

    private init(options: DecodeOptionsCopy) throws {
        self.options = options
        input = AVIFStreamInput(sizeLimit: options.limits.max_input_bytes)
        session = try AVIFDecoderSession(stream: input, options: options)
    }

    deinit { if let bestLayer { avifImageDestroy(bestLayer) } }

    static func open(_ given: UnsafePointer<ip_decode_options>?) throws -> AVIFIncrementalDecoder {
        try AVIFIncrementalDecoder(options: IncrementalOptions.retain(given))
    }

    /// OK with a preview or the final image; NEED_MORE (thrown) while nothing can be drawn.
    func update(_ bytes: UnsafeBufferPointer<UInt8>, isFinal: Bool, call: OpaquePointer?,
                into target: UnsafeMutablePointer<ip_image>) throws -> ip_status {
        // The request points at a copy: `preview` and `finish` read `options` meanwhile.
        let image = try IncrementalOptions.withRequest(options, data: bytes.baseAddress, size: bytes.count, call: call) { request in
            isFinal ? try finish(request) : try preview(bytes, view: try DecodeRequestView(request))
        }
        ABIStruct.write(image, to: target)
        return ip_status(IP_STATUS_OK)
    }

    // MARK: - Updates

    private static let needMore = PluginFailure(IP_STATUS_NEED_MORE, "no AVIF preview can be drawn yet")

    private var wantsPreview: Bool { options.page_index == 0 && options.frame_index == 0 }

    /// A non-final update: the preview, or NEED_MORE (thrown) when nothing can be drawn yet.
    private func preview(_ bytes: UnsafeBufferPointer<UInt8>, view: DecodeRequestView) throws -> ip_image {
        if let failure { throw failure }
        do {
            try input.append(bytes, isFinal: false)
            try InputLimit.check(input.count, options.limits)
            guard wantsPreview else { throw Self.needMore }
            try Host.checkCancellation(view.call)
            guard try parse(view) else { throw Self.needMore }
            try advance()
            try Host.checkCancellation(view.call)
            guard let image = try draw(view) else { throw Self.needMore }
            return image
        } catch let error as PluginFailure {
            if error.status != ip_status(IP_STATUS_NEED_MORE) && error.status != ip_status(IP_STATUS_CANCELLED) {
                failure = error
            }
            throw error
        }
    }

    /// The final update: the image `decode` would give for these bytes (or its error).
    private func finish(_ request: UnsafePointer<ip_decode_request>) throws -> ip_image {
        let view = try DecodeRequestView(request)
        let limit = options.limits.max_input_bytes
        let withinLimit = limit == 0 || UInt64(view.data.count) <= limit
        if failure == nil, parsed, !layered, wantsPreview, withinLimit {
            do {
                try input.append(view.data, isFinal: true)
                if !complete {
                    try Host.checkCancellation(view.call)
                    complete = avifDecoderNextImage(session.decoder) == AVIF_RESULT_OK
                }
                if complete {
                    try Host.checkCancellation(view.call)
                    var image = try AVIFDecoding.frame(session, view: view, call: view.call)
                    image.index = 0
                    return image
                }
            } catch let error as PluginFailure where error.status == ip_status(IP_STATUS_CANCELLED) {
                throw error
            } catch {
                // Fall through: the one-shot decode gives the canonical result or error.
            }
        }
        var image = ip_image()
        image.struct_size = UInt32(MemoryLayout<ip_image>.size)
        try AVIFDecoding.decode(request, into: &image)
        return image
    }

    /// Retries avifDecoderParse (which starts over each time) until the header is complete; true once parsed.
    private func parse(_ view: DecodeRequestView) throws -> Bool {
        if parsed { return true }
        let result = avifDecoderParse(session.decoder)
        if result == AVIF_RESULT_WAITING_ON_IO { return false }
        try session.check(result, "to parse the file")
        // As decode does: the container's size against the limits before the AV1 decoder allocates planes.
        try view.checkLimits(width: Int(session.image.pointee.width), height: Int(session.image.pointee.height))
        parsed = true
        layered = session.decoder.pointee.progressiveState == AVIF_PROGRESSIVE_STATE_ACTIVE
        return true
    }

    /// Decodes whatever the bytes so far allow: more layers, or more grid cells of the still (or frame 0).
    private func advance() throws {
        let decoder = session.decoder
        if layered {
            while !layersStalled, layersDecoded < session.imageCount {
                let result = avifDecoderNextImage(decoder)
                if result == AVIF_RESULT_WAITING_ON_IO || result == AVIF_RESULT_NO_IMAGES_REMAINING { return }
                if result != AVIF_RESULT_OK {
                    // A later layer that libavif cannot decode leaves the previews at the last good one; the final
                    // update decodes the best layer the one-shot way.
                    guard layersDecoded == 0 else { layersStalled = true; return }
                    try session.check(result, "to decode layer 1")
                }
                try keepLayer(decoder.pointee.image)
                layersDecoded += 1
            }
        } else if !complete {
            let result = avifDecoderNextImage(decoder)
            if result == AVIF_RESULT_WAITING_ON_IO { return }
            try session.check(result, "to decode the image")
            complete = true
        }
    }

    private func keepLayer(_ image: UnsafeMutablePointer<avifImage>) throws {
        if bestLayer == nil { bestLayer = avifImageCreateEmpty() }
        guard let bestLayer else { throw PluginFailure(IP_STATUS_NO_MEMORY, "libavif could not create an image") }
        let result = avifImageCopy(bestLayer, image, AVIF_PLANES_ALL.rawValue)
        guard result == AVIF_RESULT_OK else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libavif could not copy a layer: " + String(cString: avifResultToString(result)))
        }
    }

    /// The preview for what is decoded so far, or nil when there is nothing to draw.
    private func draw(_ view: DecodeRequestView) throws -> ip_image? {
        let orient = !view.has(UInt32(IP_DECODE_IGNORE_ORIENTATION))
        let sixteenBit = view.has(UInt32(IP_DECODE_HIGH_BIT_DEPTH))
        if layered {
            guard let bestLayer else { return nil }
            var image = try AVIFRendering.render(
                bestLayer, geometry: AVIFGeometry(bestLayer.pointee, applyOrientation: orient),
                sixteenBit: (sixteenBit || AVIFColor.isHDR(bestLayer.pointee)) && bestLayer.pointee.depth > 8, view: view, call: view.call)
            AVIFColor.facts(bestLayer.pointee).write(into: &image, call: view.call)
            return image
        }
        if complete {
            var image = try AVIFDecoding.frame(session, view: view, call: view.call)
            image.index = 0
            return image
        }
        let image = session.image
        let rows = Int(avifDecoderDecodedRowCount(session.decoder))
        guard rows > 0 else { return nil }
        var partial = try AVIFPartialRendering.render(
            image, rows: rows, geometry: AVIFGeometry(image.pointee, applyOrientation: orient),
            sixteenBit: (sixteenBit || AVIFColor.isHDR(image.pointee)) && image.pointee.depth > 8, view: view, call: view.call)
        if partial != nil { AVIFColor.facts(image.pointee).write(into: &partial!, call: view.call) }
        return partial
    }
}
