import CHEIF
import PluginAPI
import PluginKit

/// One libheif context over the request's borrowed bytes, alive for one plugin call (so calls share nothing and
/// the coder is thread-safe). libheif reads the bytes in place: they stay valid until the call returns.
final class HEIFFile {
    let context: OpaquePointer
    let data: UnsafeBufferPointer<UInt8>
    /// Item ID → item type, read from the boxes once per file (libheif 1.15 does not expose it).
    private(set) lazy var itemTypes: [UInt32: String] = ItemTypeInspector.inspect(data).itemTypes
    /// References to missing items that were disabled so that the rest of the file could be read (see
    /// `BrokenReferences`); empty for a sound file. `info` lists them.
    private(set) var disabledReferences: [String] = []
    /// The repaired copy libheif reads instead of the request's bytes, when there is one.
    private var ownedCopy: UnsafeMutableBufferPointer<UInt8>?

    private init(context: OpaquePointer, data: UnsafeBufferPointer<UInt8>) {
        self.context = context
        self.data = data
    }

    deinit {
        heif_context_free(context)
        ownedCopy?.deallocate()
    }

    /// Parses the file's boxes (no pixels yet). `maxDimension` (0 = none) tightens libheif's own per-side limit,
    /// which it checks against every item's `ispe` while reading; `threads` (0 = every core) caps how many grid
    /// tiles libheif decodes at once.
    ///
    /// A file that libheif refuses only because some reference names a missing item is read again from a copy in
    /// which those references are disabled (`BrokenReferences`), so its primary image still decodes.
    static func open(_ data: UnsafeBufferPointer<UInt8>, maxDimension: UInt32, threads: UInt32) throws -> HEIFFile {
        guard !data.isEmpty else { throw PluginFailure.invalidData("empty input: not a HEIF file") }
        let first = try read(data, maxDimension: maxDimension, threads: threads)
        if first.error.code == heif_error_Ok { return first.file }
        guard first.error.subcode == heif_suberror_Nonexisting_item_referenced, let repair = BrokenReferences.repair(data) else {
            throw HEIFFailure.failure(first.error, "reading the file", data: data)
        }
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: repair.bytes.count)
        _ = copy.initialize(from: repair.bytes)
        let second: (file: HEIFFile, error: heif_error)
        do {
            second = try read(UnsafeBufferPointer(copy), maxDimension: maxDimension, threads: threads)
        } catch {
            copy.deallocate()
            throw error
        }
        second.file.ownedCopy = copy  // freed with the file, after its context
        guard second.error.code == heif_error_Ok else {
            // Still unreadable: report the original failure, which names the first broken reference.
            throw HEIFFailure.failure(first.error, "reading the file", data: data)
        }
        second.file.disabledReferences = repair.disabled
        return second.file
    }

    /// One attempt at reading `data` into a fresh context; the error is libheif's, unthrown.
    private static func read(_ data: UnsafeBufferPointer<UInt8>, maxDimension: UInt32, threads: UInt32) throws
        -> (file: HEIFFile, error: heif_error)
    {
        LibHEIF.ensureInitialised()
        guard let context = heif_context_alloc() else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libheif could not allocate a context")
        }
        let file = HEIFFile(context: context, data: data)
        if maxDimension > 0, maxDimension < LibHEIF.defaultMaximumDimension {
            heif_context_set_maximum_image_size_limit(context, Int32(maxDimension))
        }
        heif_context_set_max_decoding_threads(context, Int32(HEVCThreads.count(requested: threads)))
        return (file, heif_context_read_from_memory_without_copy(context, data.baseAddress!, data.count, nil))
    }

    /// Top-level image IDs in page order: the primary image first, then the others in file order.
    ///
    /// When `pitm` names an item that is not a top-level image (a thumbnail, as one camera's files do: `pitm` → a
    /// grid that is the `thmb` of the real image), libheif 1.15 reads the file but refuses to open that item. The
    /// primary image is then the top-level image the named item is a thumbnail of, else the first top-level
    /// image, as heif-convert (which walks the top-level images) and libheif's later primary-image fallback
    /// choose; `primaryNote` says so for `info`.
    func pageIDs() throws -> [heif_item_id] {
        let count = Int(heif_context_get_number_of_top_level_images(context))
        guard count > 0 else { throw PluginFailure.invalidData("the HEIF file has no top-level image") }
        var ids = [heif_item_id](repeating: 0, count: count)
        let filled = Int(heif_context_get_list_of_top_level_image_IDs(context, &ids, Int32(count)))
        ids.removeSubrange(max(0, min(filled, count))...)
        guard !ids.isEmpty else { throw PluginFailure.invalidData("the HEIF file has no top-level image") }
        var named: heif_item_id = 0
        try HEIFFailure.check(heif_context_get_primary_image_ID(context, &named), "finding the primary image", data: data)
        let primary = ids.contains(named) ? named : substitutePrimary(for: named, among: ids)
        return [primary] + ids.filter { $0 != primary }
    }

    /// Set by `pageIDs` when `pitm` named an item that is not a top-level image: what was named and what is used.
    private(set) var primaryNote: String?

    private func substitutePrimary(for named: heif_item_id, among ids: [heif_item_id]) -> heif_item_id {
        let owner = ids.first { id in
            var raw: OpaquePointer?
            guard heif_context_get_image_handle(context, id, &raw).code == heif_error_Ok, let raw else { return false }
            defer { heif_image_handle_release(raw) }
            let count = Int(heif_image_handle_get_number_of_thumbnails(raw))
            guard count > 0 else { return false }
            var thumbs = [heif_item_id](repeating: 0, count: count)
            let filled = Int(heif_image_handle_get_list_of_thumbnail_IDs(raw, &thumbs, Int32(count)))
            return thumbs.prefix(max(0, min(filled, count))).contains(named)
        }
        let chosen = owner ?? ids[0]
        let kind = itemTypes[named].map { " (\($0))" } ?? ""
        let role = owner != nil ? "is a thumbnail of #\(chosen), which is used as the primary image"
            : "is not a top-level image; the first top-level image #\(chosen) is used as the primary image"
        primaryNote = "pitm names item #\(named)\(kind), which \(role)"
        return chosen
    }

    /// The image for page `index` (see `pageIDs`); NOT_FOUND past the last, UNSUPPORTED for a codec libheif lacks.
    func handle(page index: Int) throws -> HEIFHandle {
        let ids = try pageIDs()
        guard index < ids.count else {
            throw PluginFailure.notFound("page \(index) does not exist: the file has \(ids.count) top-level image(s)")
        }
        // libheif 1.15 opens a VVC item and fails only when decoding: say so before anything is promised.
        try ItemTypeInspector.checkDecodable(itemTypes[ids[index]])
        var raw: OpaquePointer?
        try HEIFFailure.check(heif_context_get_image_handle(context, ids[index], &raw), "opening image \(ids[index])", data: data)
        guard let raw else { throw PluginFailure.internalError("libheif returned no image handle") }
        return HEIFHandle(raw, itemID: ids[index], file: self)
    }
}

/// An image (or thumbnail) handle; keeps its file alive so the borrowed bytes and the context outlive it.
final class HEIFHandle {
    let raw: OpaquePointer
    /// libheif 1.15 has no accessor for a handle's item ID; it is kept from the lookup that opened the handle.
    let itemID: heif_item_id
    let file: HEIFFile

    init(_ raw: OpaquePointer, itemID: heif_item_id, file: HEIFFile) {
        self.raw = raw
        self.itemID = itemID
        self.file = file
    }

    deinit { heif_image_handle_release(raw) }

    /// Display size with irot/imir/clap applied (libheif 1.15 reports it that way).
    var width: Int { Int(heif_image_handle_get_width(raw)) }
    var height: Int { Int(heif_image_handle_get_height(raw)) }
    /// Coded size from `ispe`, before transformations: what a decode with ignore_transformations produces.
    var codedWidth: Int { Int(heif_image_handle_get_ispe_width(raw)) }
    var codedHeight: Int { Int(heif_image_handle_get_ispe_height(raw)) }
    var lumaBits: Int { Int(heif_image_handle_get_luma_bits_per_pixel(raw)) }
    var hasAlpha: Bool { heif_image_handle_has_alpha_channel(raw) != 0 }
    var hasDepth: Bool { heif_image_handle_has_depth_image(raw) != 0 }
    /// A grid of separately coded tiles (libheif decodes those in parallel itself).
    var isGrid: Bool { file.itemTypes[itemID] == "grid" }

    /// The size a decode produces: display size, or the coded size when transformations are ignored.
    func outputSize(ignoringTransformations: Bool) -> (width: Int, height: Int) {
        ignoringTransformations ? (codedWidth, codedHeight) : (width, height)
    }

    func thumbnails() throws -> [HEIFHandle] {
        let count = Int(heif_image_handle_get_number_of_thumbnails(raw))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let filled = Int(heif_image_handle_get_list_of_thumbnail_IDs(raw, &ids, Int32(count)))
        return try ids.prefix(max(0, min(filled, count))).map { id in
            var thumb: OpaquePointer?
            try HEIFFailure.check(heif_image_handle_get_thumbnail(raw, id, &thumb), "opening thumbnail \(id)", data: file.data)
            guard let thumb else { throw PluginFailure.internalError("libheif returned no thumbnail handle") }
            return HEIFHandle(thumb, itemID: id, file: file)
        }
    }

    /// Metadata blocks: Exif by item type, XMP as a `mime` item of type application/rdf+xml.
    var exifCount: Int { metadataIDs("Exif").count }
    var xmpCount: Int { xmpIDs.count }

    private var xmpIDs: [heif_item_id] {
        metadataIDs("mime").filter { id in
            heif_image_handle_get_metadata_content_type(raw, id).map { String(cString: $0) } == "application/rdf+xml"
        }
    }

    private func metadataIDs(_ type: String) -> [heif_item_id] {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(raw, type))
        guard count > 0, count <= 1024 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let filled = Int(heif_image_handle_get_list_of_metadata_block_IDs(raw, type, &ids, Int32(count)))
        return Array(ids.prefix(max(0, min(filled, count))))
    }

    /// The first Exif block (with its offset word, which `MetadataBlocks` drops) and XMP packet, for `info`; a
    /// block libheif cannot read, or larger than `MetadataBlocks.limit`, is left out.
    var metadata: MetadataBlocks {
        func read(_ id: heif_item_id?) -> [UInt8]? {
            guard let id else { return nil }
            let size = heif_image_handle_get_metadata_size(raw, id)
            guard size > 0, size <= MetadataBlocks.limit else { return nil }
            var bytes = [UInt8](repeating: 0, count: size)
            let error = bytes.withUnsafeMutableBytes { heif_image_handle_get_metadata(raw, id, $0.baseAddress) }
            return error.code == heif_error_Ok ? bytes : nil
        }
        return MetadataBlocks(exif: read(metadataIDs("Exif").first), xmp: read(xmpIDs.first))
    }
}
