extension RGBAColor {
    /// Parses `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa` or a CSS colour name (case-insensitive, plus `transparent`).
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.hasPrefix("#") {
            let hex = Array(trimmed.dropFirst())
            guard hex.allSatisfy(\.isHexDigit) else { return nil }
            func value(_ digits: ArraySlice<Character>) -> UInt8 { UInt8(String(digits), radix: 16)! }
            switch hex.count {
            case 3, 4:
                let v = hex.map { value([$0, $0][...]) }
                self.init(red: v[0], green: v[1], blue: v[2], alpha: hex.count == 4 ? v[3] : 255)
            case 6, 8:
                self.init(red: value(hex[0..<2]), green: value(hex[2..<4]), blue: value(hex[4..<6]),
                          alpha: hex.count == 8 ? value(hex[6..<8]) : 255)
            default:
                return nil
            }
            return
        }
        if trimmed == "transparent" { self.init(red: 0, green: 0, blue: 0, alpha: 0); return }
        guard let packed = CSSColorNames.table[trimmed] else { return nil }
        self.init(red: UInt8(packed >> 16 & 0xFF), green: UInt8(packed >> 8 & 0xFF), blue: UInt8(packed & 0xFF))
    }
}

private extension String {
    func trimmingCharacters(in _: WhitespaceSet) -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}

private enum WhitespaceSet { case whitespaces }
