/// Finds item references (`iref` entries) that name an item the file does not have, and disables them in a copy.
///
/// libheif 1.15 resolves every reference of every item while it reads a file, so one broken reference anywhere
/// (a thumbnail that points at a missing image, an alpha plane of a secondary image that was never written) makes
/// the whole file unreadable, although the primary image may be complete. Repairing the copy keeps every byte
/// offset (the `iloc` extents stay valid): a broken reference box keeps its size and only its type changes to
/// `xbrk`, which libheif reads and ignores as it does any reference type it does not use. A primary image that
/// itself needs the missing item (a grid tile) still fails to decode, as it must.
enum BrokenReferences {
    struct Repair {
        var bytes: [UInt8]
        /// "thmb #3 -> #77", one per disabled reference box.
        var disabled: [String]
    }

    static let disabledType: [UInt8] = Array("xbrk".utf8)

    /// The repaired copy, or nil when no reference names a missing item (the failure has another cause).
    static func repair(_ data: UnsafeBufferPointer<UInt8>) -> Repair? {
        let top = ISOBoxes.children(data, from: 0, to: data.count, limit: 256).boxes
        guard let meta = top.first(where: { $0.type == ISOBoxes.fourCC("meta") }) else { return nil }
        let metaEnd = min(meta.declaredEnd, data.count)
        let children = ISOBoxes.children(data, from: meta.payloadStart + 4, to: metaEnd).boxes
        guard let iinf = children.first(where: { $0.type == ISOBoxes.fourCC("iinf") }),
              let iref = children.first(where: { $0.type == ISOBoxes.fourCC("iref") }) else { return nil }
        let items = itemIDs(data, iinf: iinf, end: metaEnd)
        guard !items.isEmpty, let version = data[safe: iref.payloadStart] else { return nil }
        let wide = version != 0
        var repair = Repair(bytes: Array(data), disabled: [])
        let references = ISOBoxes.children(data, from: iref.payloadStart + 4, to: min(iref.declaredEnd, metaEnd))
        for reference in references.boxes {
            var offset = reference.payloadStart
            guard let from = readID(data, &offset, wide: wide), let count = ISOBoxes.readUInt16(data, offset) else { continue }
            offset += 2
            var targets: [UInt32] = []
            for _ in 0..<count {
                guard let target = readID(data, &offset, wide: wide) else { break }
                targets.append(target)
            }
            let missing = ([from] + targets).filter { !items.contains($0) }
            guard !missing.isEmpty else { continue }
            let typeOffset = reference.payloadStart - 4
            repair.bytes.replaceSubrange(typeOffset..<(typeOffset + 4), with: disabledType)
            let arrow = targets.map { "#\($0)" }.joined(separator: ",")
            repair.disabled.append("\(ISOBoxes.text(reference.type)) #\(from) -> \(arrow)")
        }
        return repair.disabled.isEmpty ? nil : repair
    }

    /// Every item ID that `iinf` declares (any `infe` version: 0 to 2 have a 16-bit ID, 3 a 32-bit one).
    private static func itemIDs(_ data: UnsafeBufferPointer<UInt8>, iinf: ISOBoxes.Header, end: Int) -> Set<UInt32> {
        let wideCount = data[safe: iinf.payloadStart] != 0
        let entries = ISOBoxes.children(data, from: iinf.payloadStart + (wideCount ? 8 : 6), to: min(iinf.declaredEnd, end))
        var ids = Set<UInt32>()
        for infe in entries.boxes where infe.type == ISOBoxes.fourCC("infe") {
            guard let version = data[safe: infe.payloadStart] else { continue }
            var offset = infe.payloadStart + 4
            if let id = readID(data, &offset, wide: version >= 3) { ids.insert(id) }
        }
        return ids
    }

    private static func readID(_ data: UnsafeBufferPointer<UInt8>, _ offset: inout Int, wide: Bool) -> UInt32? {
        if wide {
            defer { offset += 4 }
            return ISOBoxes.readUInt32(data, offset)
        }
        defer { offset += 2 }
        return ISOBoxes.readUInt16(data, offset).map(UInt32.init)
    }
}
