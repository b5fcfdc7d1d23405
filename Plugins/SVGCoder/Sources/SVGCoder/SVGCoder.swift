import CRsvg
import PluginAPI
import PluginKit

/// probe and decode: what the coder's C slots call inside `withStatus`.
enum SVGCoder {
    static func probe(_ request: UnsafePointer<ip_decode_request>?, into info: UnsafeMutablePointer<ip_image_info>?) throws {
        guard let info else { throw PluginFailure.internalError("NULL info") }
        let view = try DecodeRequestView(request)
        try checkInput(view)
        let document = try SVGDocument(data: view.data, sourceURL: view.sourceURL)
        let size = try document.intrinsicSize()
        var result = ip_image_info()
        result.width = UInt32(size.pixelWidth)
        result.height = UInt32(size.pixelHeight)
        result.frame_count = 1
        result.page_count = 1
        result.loop_count = -1
        result.bit_depth = 8
        result.has_alpha = 1
        setInfoStrings(&result, format: "svg", details: "\(document.rootAttributesDescription()); size from \(size.source); 96 dpi")
        ABIStruct.write(result, to: info)
    }

    static func decode(_ request: UnsafePointer<ip_decode_request>?, into image: UnsafeMutablePointer<ip_image>?) throws {
        guard let image else { throw PluginFailure.internalError("NULL image") }
        let view = try DecodeRequestView(request)
        try checkInput(view)
        if view.options.page_index > 0 {
            throw PluginFailure.notFound("an SVG has one page; page \(view.options.page_index) does not exist")
        }
        if view.options.frame_index > 0 {
            throw PluginFailure.notFound("an SVG has one frame; frame \(view.options.frame_index) does not exist")
        }
        try Host.checkCancellation(view.call)

        let document = try SVGDocument(data: view.data, sourceURL: view.sourceURL)
        // The tint extension (the host sends opaque black for a template without a colour).
        let template = view.options.tint?.template ?? false
        let tint: UInt32? = view.options.tint?.rgba
        if let tint {
            // currentColor follows the tint. In template mode only the drawn alpha survives, so the CSS colour is
            // opaque there; the tint's alpha is applied once, by the template conversion.
            try document.setCurrentColor(
                red: UInt8(tint >> 24), green: UInt8((tint >> 16) & 0xFF), blue: UInt8((tint >> 8) & 0xFF),
                alpha: template ? 255 : UInt8(tint & 0xFF))
        }
        let size = try document.intrinsicSize()
        let placement = outputPlacement(for: size, view)
        let width = Int(placement.out_width), height = Int(placement.out_height)
        try view.checkLimits(width: width, height: height)
        guard width <= SVGRenderer.maxDimension, height <= SVGRenderer.maxDimension else {
            throw PluginFailure.limitExceeded(
                "\(width)x\(height) is larger than cairo's \(SVGRenderer.maxDimension) pixels per side")
        }
        try Host.checkCancellation(view.call)

        var output = try Host.allocatePixels(view.call, width: width, height: height, format: IP_PIXEL_RGBA8)
        // librsvg cannot be interrupted: cancellation is honoured before and after the render.
        try SVGRenderer.render(document, intrinsic: size, placement: placement, into: output)
        try Host.checkCancellation(view.call)
        // cairo drew premultiplied ARGB32; the output is straight RGBA (a template keeps only the drawn alpha).
        var conversion = PremultipliedARGB32.Conversion.straightRGBA
        if template, let tint { conversion = .template(tint: tint, clearTransparent: true) }
        guard let pixels = output.pixels else { throw PluginFailure.internalError("image without pixels") }
        try PremultipliedARGB32.convert(
            pixels, width: width, height: height, stride: Int(output.stride), to: conversion,
            call: view.call, rowsPerCancellationPoll: 256)
        output.alpha_mode = ip_alpha_mode(IP_ALPHA_STRAIGHT)
        output.duration_ms = 0
        output.index = 0
        ABIStruct.write(output, to: image)
    }

    /// Without a requested size: the intrinsic size rounded up, drawn at scale 1 (as rsvg-convert does).
    /// With one: the host's placement with upscaling always allowed, because rendering a vector larger than its nominal
    /// size loses nothing; that is the point of asking a vector coder for a size.
    static func outputPlacement(for size: IntrinsicSize, _ view: DecodeRequestView) -> ip_placement {
        guard let box = view.thumbnailSize else {
            return ip_placement(
                struct_size: UInt32(MemoryLayout<ip_placement>.size), out_width: UInt32(size.pixelWidth), out_height: UInt32(size.pixelHeight),
                scale_x: 1, scale_y: 1, offset_x: 0, offset_y: 0)
        }
        return Host.place(sourceWidth: size.width, sourceHeight: size.height, boxWidth: UInt32(box.width),
                          boxHeight: UInt32(box.height), mode: view.options.scale_mode, allowUpscale: true)
    }

    /// Rejects empty input with a clearer message than the XML parser's (the kit has checked the input size).
    static func checkInput(_ view: DecodeRequestView) throws {
        if view.data.isEmpty { throw PluginFailure.invalidData("empty input: not an SVG document") }
    }
}

extension DecodeRequestView {
    /// options->source_url as a String, or nil.
    var sourceURL: String? { options.sourceURL }
}
