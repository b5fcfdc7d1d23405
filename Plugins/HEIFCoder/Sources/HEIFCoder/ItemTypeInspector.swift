import CHEIF

/// Reads what kind of item each HEIF image is (`meta` → `pitm`, `iinf` → `infe`), which libheif 1.15 does not
/// expose.
///
/// Used to fail honestly: libheif 1.15 silently skips items of types it does not know (JPEG, `unci`
/// uncompressed), then complains that `pitm` "references a non-existing image" (Invalid_input); it reads VVC
/// items but cannot decode them. Knowing the item type turns both into UNSUPPORTED with the codec's name, from
/// probe as well as decode.
enum ItemTypeInspector {
    struct Facts {
        /// Item ID → item type ("hvc1", "jpeg", "unci", "grid").
        var itemTypes: [UInt32: String] = [:]
        var primaryID: UInt32?
        /// A top-level `mini` box: a low-overhead HEIF file (ISO/IEC 23008-12:2024), unknown to libheif 1.15.
        var isLowOverhead = false
        /// The last top-level box is a real one (mdat, meta ...) that claims to end after the data: a cut file.
        /// A garbage type running past the end is corruption, not truncation.
        var truncated = false

        var primaryType: String? { primaryID.flatMap { itemTypes[$0] } }
    }

    /// Top-level box types of HEIF and ISO-BMFF files; a truncation claim needs one of these.
    static let topLevelTypes: Set<String> = ["ftyp", "meta", "mdat", "moov", "free", "skip", "uuid", "mini", "idat", "moof", "mfra", "styp", "sidx", "pdin", "meco"]

    static func inspect(_ data: UnsafeBufferPointer<UInt8>) -> Facts {
        var facts = Facts()
        let top = ISOBoxes.children(data, from: 0, to: data.count, limit: 256)
        if top.runsPast, let last = top.boxes.last { facts.truncated = topLevelTypes.contains(ISOBoxes.text(last.type)) }
        for box in top.boxes {
            if box.type == ISOBoxes.fourCC("mini") { facts.isLowOverhead = true }
            if box.type == ISOBoxes.fourCC("meta") { readMeta(data, box, into: &facts) }
        }
        return facts
    }

    /// `meta` is a full box: 4 bytes of version and flags precede its children.
    private static func readMeta(_ data: UnsafeBufferPointer<UInt8>, _ meta: ISOBoxes.Header, into facts: inout Facts) {
        let end = min(meta.declaredEnd, data.count)
        let children = ISOBoxes.children(data, from: meta.payloadStart + 4, to: end).boxes
        if let pitm = children.first(where: { $0.type == ISOBoxes.fourCC("pitm") }) {
            facts.primaryID = itemID(data, at: pitm.payloadStart + 4, wide: data[safe: pitm.payloadStart] != 0)
        }
        guard let iinf = children.first(where: { $0.type == ISOBoxes.fourCC("iinf") }) else { return }
        let wideCount = data[safe: iinf.payloadStart] != 0
        let entries = ISOBoxes.children(data, from: iinf.payloadStart + (wideCount ? 8 : 6), to: min(iinf.declaredEnd, end))
        for infe in entries.boxes where infe.type == ISOBoxes.fourCC("infe") {
            // Versions 0 and 1 predate item types; version 2 has a 16-bit item ID, version 3 a 32-bit one.
            guard let version = data[safe: infe.payloadStart], version >= 2 else { continue }
            let wide = version >= 3
            guard let id = itemID(data, at: infe.payloadStart + 4, wide: wide),
                  let type = ISOBoxes.readUInt32(data, infe.payloadStart + 4 + (wide ? 4 : 2) + 2) else { continue }
            facts.itemTypes[id] = ISOBoxes.text(type)
        }
    }

    private static func itemID(_ data: UnsafeBufferPointer<UInt8>, at offset: Int, wide: Bool) -> UInt32? {
        wide ? ISOBoxes.readUInt32(data, offset) : ISOBoxes.readUInt16(data, offset).map(UInt32.init)
    }

    /// A person's name for an item type, as used in "libheif 1.15 cannot decode <codec>".
    static func codecName(_ itemType: String) -> String {
        switch itemType {
        case "hvc1": "HEVC"
        case "av01": "AV1"
        case "jpeg": "JPEG-coded items"
        case "vvc1": "VVC (H.266)"
        case "avc1": "AVC (H.264)"
        case "evc1": "EVC"
        case "j2k1": "JPEG 2000"
        case "unci": "uncompressed (ISO/IEC 23001-17) items"
        case "mski": "mask items"
        default: "items of type '\(itemType)'"
        }
    }

    /// Item types libheif 1.15 decodes here: derived images always, coded ones when it has their decoder.
    static let decodableTypes: Set<String> = {
        var types: Set<String> = ["grid", "iden", "iovl"]
        if heif_have_decoder_for_format(heif_compression_HEVC) != 0 { types.insert("hvc1") }
        if heif_have_decoder_for_format(heif_compression_AV1) != 0 { types.insert("av01") }
        return types
    }()

    /// UNSUPPORTED when the item is of a type libheif cannot decode here; nothing when it can or is unknown (nil).
    static func checkDecodable(_ type: String?) throws {
        if let type, !decodableTypes.contains(type) { throw HEIFFailure.cannotDecode(type) }
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    subscript(safe index: Int) -> UInt8? { index >= 0 && index < count ? self[index] : nil }
}
