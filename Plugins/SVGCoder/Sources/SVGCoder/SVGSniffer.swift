/// Decides from the first bytes of a source whether it is an SVG document, without a full XML parser.
///
/// The rule: after an optional byte-order mark, the document may contain whitespace, the `<?xml` prolog and
/// other processing instructions, comments and one DOCTYPE (with an internal subset); the first element must
/// then be `svg` (or `prefix:svg`) in the SVG namespace. An unprefixed `<svg>` without any `xmlns` is also
/// accepted because librsvg 2.54 renders it (many hand-written files omit the namespace); an unprefixed `svg`
/// whose default namespace is something else is not SVG. Anything else (HTML, other XML, binary) is rejected.
/// Cheap by design: one forward pass over at most the bytes given; the only allocations are a few entity-name
/// ranges and, for UTF-16, a bounded narrow copy.
enum SVGSniffer {
    enum Verdict: Equatable {
        case svg
        case notSVG
        /// The bytes end before a decision; more bytes may decide.
        case needMore
    }

    static let svgNamespace: [UInt8] = Array("http://www.w3.org/2000/svg".utf8)

    /// Classifies UTF-8 (or ASCII-compatible) text, or UTF-16 text with a byte-order mark.
    static func classify(_ bytes: UnsafeBufferPointer<UInt8>) -> Verdict {
        if bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) {
            return classifyUTF16(bytes, littleEndian: bytes[0] == 0xFF)
        }
        var scanner = Scanner(bytes)
        if scanner.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.position = 3 }
        return scanner.classifyDocument()
    }

    /// UTF-16 with a BOM: every markup character is ASCII, so the code units narrow to bytes (anything non-ASCII
    /// becomes 0x80, which can only appear in text or attribute values). Reads at most 4 KiB of units.
    private static func classifyUTF16(_ bytes: UnsafeBufferPointer<UInt8>, littleEndian: Bool) -> Verdict {
        let units = min((bytes.count - 2) / 2, 4096)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(units, 1)) { narrow in
            for index in 0..<units {
                let low = bytes[2 + index * 2 + (littleEndian ? 0 : 1)]
                let high = bytes[2 + index * 2 + (littleEndian ? 1 : 0)]
                narrow[index] = high == 0 && low < 0x80 ? low : 0x80
            }
            var scanner = Scanner(UnsafeBufferPointer(rebasing: narrow[0..<units]))
            return scanner.classifyDocument()
        }
    }
}

/// Markup delimiters, made once.
private enum Markup {
    static let piEnd: [UInt8] = Array("?>".utf8)
    static let commentStart: [UInt8] = Array("<!--".utf8)
    static let commentEnd: [UInt8] = Array("-->".utf8)
    static let doctype: [UInt8] = Array("<!DOCTYPE".utf8)
    static let entity: [UInt8] = Array("<!ENTITY".utf8)
}

/// A forward-only cursor over the bytes; every method stops at the end of the buffer.
private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    /// Set after `<!DOCTYPE svg`: if the bytes run out before the root element, the DOCTYPE decides.
    var doctypeSaysSVG = false
    /// Names of internal entities whose value is the SVG namespace: Illustrator writes
    /// `<!ENTITY ns_svg "http://www.w3.org/2000/svg">` and then `<svg xmlns="&ns_svg;">`.
    var namespaceEntities: [Range<Int>] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool { position >= bytes.count }

    func starts(with prefix: [UInt8], at offset: Int? = nil) -> Bool {
        let start = offset ?? position
        guard start + prefix.count <= bytes.count else { return false }
        for (index, byte) in prefix.enumerated() where bytes[start + index] != byte { return false }
        return true
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    static func isNameByte(_ byte: UInt8) -> Bool {
        // ASCII name characters plus any non-ASCII byte (XML names may be Unicode).
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x5F || byte == 0x2D || byte == 0x2E || byte == 0x3A || byte >= 0x80
    }

    mutating func skipSpaces() {
        while !atEnd, Scanner.isSpace(bytes[position]) { position += 1 }
    }

    /// Moves past the next occurrence of `terminator`; false when the bytes end first.
    mutating func skip(past terminator: [UInt8]) -> Bool {
        while position + terminator.count <= bytes.count {
            if starts(with: terminator) {
                position += terminator.count
                return true
            }
            position += 1
        }
        position = bytes.count
        return false
    }

    /// The verdict when the bytes end before a decision.
    var outOfBytes: SVGSniffer.Verdict { doctypeSaysSVG ? .svg : .needMore }

    mutating func classifyDocument() -> SVGSniffer.Verdict {
        while true {
            skipSpaces()
            if atEnd { return outOfBytes }
            guard bytes[position] == UInt8(ascii: "<") else { return .notSVG }
            if position + 1 >= bytes.count { return outOfBytes }
            switch bytes[position + 1] {
            case UInt8(ascii: "?"):
                if !skip(past: Markup.piEnd) { return outOfBytes }
            case UInt8(ascii: "!"):
                if starts(with: Markup.commentStart) {
                    if !skip(past: Markup.commentEnd) { return outOfBytes }
                } else if starts(with: Markup.doctype) {
                    if !skipDoctype() { return outOfBytes }
                } else if bytes.count - position < 9 {
                    return outOfBytes
                } else {
                    return .notSVG  // CDATA or another declaration before the root: not a document we accept.
                }
            default:
                return classifyRootElement()
            }
        }
    }

    /// Skips `<!DOCTYPE name ... [subset]>`, noting whether the declared root name is `svg`.
    mutating func skipDoctype() -> Bool {
        position += 9
        skipSpaces()
        let nameStart = position
        while !atEnd, Scanner.isNameByte(bytes[position]) { position += 1 }
        if atEnd { return false }
        let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<position])
        if name.elementsEqual("svg".utf8) || name.elementsEqual("svg:svg".utf8) { doctypeSaysSVG = true }
        var inSubset = false
        while !atEnd {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                position += 1
                if !skip(past: [byte]) { return false }
                continue
            }
            if inSubset, starts(with: Markup.commentStart) {
                if !skip(past: Markup.commentEnd) { return false }
                continue
            }
            if inSubset, starts(with: Markup.entity) {
                if !readEntityDeclaration() { return false }
                continue
            }
            position += 1
            if byte == UInt8(ascii: "[") { inSubset = true }
            if byte == UInt8(ascii: "]") { inSubset = false }
            if byte == UInt8(ascii: ">"), !inSubset { return true }
        }
        return false
    }

    /// Reads `<!ENTITY name "value"` (up to the end of the value) and remembers `name` when the value is the
    /// SVG namespace. Parameter entities (`%`) and external entities are skipped by the DOCTYPE loop.
    mutating func readEntityDeclaration() -> Bool {
        position += Markup.entity.count
        skipSpaces()
        if atEnd { return false }
        if bytes[position] == UInt8(ascii: "%") { return true }
        let nameStart = position
        while !atEnd, Scanner.isNameByte(bytes[position]) { position += 1 }
        let name = nameStart..<position
        skipSpaces()
        if atEnd { return false }
        let quote = bytes[position]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return true }
        position += 1
        let valueStart = position
        if !skip(past: [quote]) { return false }
        let value = UnsafeBufferPointer(rebasing: bytes[valueStart..<(position - 1)])
        if !name.isEmpty, value.elementsEqual(SVGSniffer.svgNamespace), namespaceEntities.count < 8 {
            namespaceEntities.append(name)
        }
        return true
    }

    /// True when an attribute value is the SVG namespace, literally or as `&name;` of a declared entity.
    func isSVGNamespace(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        if value.elementsEqual(SVGSniffer.svgNamespace) { return true }
        guard value.count > 2, value.first == UInt8(ascii: "&"), value.last == UInt8(ascii: ";") else { return false }
        let reference = UnsafeBufferPointer(rebasing: value[1..<(value.count - 1)])
        return namespaceEntities.contains { reference.elementsEqual(bytes[$0]) }
    }

    /// Reads the root start tag: its name and the namespace declarations among its attributes.
    mutating func classifyRootElement() -> SVGSniffer.Verdict {
        position += 1
        let nameStart = position
        while !atEnd, Scanner.isNameByte(bytes[position]) { position += 1 }
        if atEnd { return outOfBytes }
        let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<position])
        // Split "prefix:local"; the local name must be exactly "svg".
        let colon = name.firstIndex(of: UInt8(ascii: ":"))
        let local = colon.map { UnsafeBufferPointer(rebasing: name[($0 + 1)...]) } ?? name
        let prefix = colon.map { UnsafeBufferPointer(rebasing: name[..<$0]) }
        guard local.elementsEqual("svg".utf8) else { return .notSVG }
        let next = bytes[position]
        guard Scanner.isSpace(next) || next == UInt8(ascii: ">") || next == UInt8(ascii: "/") else { return .notSVG }

        // The attribute that binds the root's prefix: "xmlns" for no prefix, "xmlns:p" for prefix p.
        var binding: [UInt8] = Array("xmlns".utf8)
        if let prefix { binding += [UInt8(ascii: ":")] + Array(prefix) }
        while true {
            skipSpaces()
            if atEnd { return outOfBytes }
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") {
                // Tag complete without a binding: fine for a bare <svg>, not for an undeclared prefix.
                return prefix == nil ? .svg : .notSVG
            }
            let attributeStart = position
            while !atEnd, Scanner.isNameByte(bytes[position]) { position += 1 }
            if atEnd { return outOfBytes }
            if position == attributeStart { return .notSVG }
            let attribute = UnsafeBufferPointer(rebasing: bytes[attributeStart..<position])
            skipSpaces()
            if atEnd { return outOfBytes }
            guard bytes[position] == UInt8(ascii: "=") else { return .notSVG }
            position += 1
            skipSpaces()
            if atEnd { return outOfBytes }
            let quote = bytes[position]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return .notSVG }
            position += 1
            let valueStart = position
            if !skip(past: [quote]) { return outOfBytes }
            let value = UnsafeBufferPointer(rebasing: bytes[valueStart..<(position - 1)])
            if attribute.elementsEqual(binding) {
                return isSVGNamespace(value) ? .svg : .notSVG
            }
        }
    }
}
