import PipelineHost

/// Names a batch's outputs from the source, the size and the page or frame, vipsthumbnail's `-o` habit:
///
///     %s  the source's file name without its extension     photo.jpeg     → photo
///     %e  the source's extension                            photo.jpeg     → jpeg
///     %z  the size as asked                                 --size 256     → 256x256
///     %w  %h  the width and height asked                    --size 256x0   → 256, 0
///     %p  the page or frame, counted from 0                 --pages all    → 0, 1, 2...
///     %%  a percent sign
///
/// A relative template is relative to each source's folder (`-o tn_%s.jpg` writes beside each source, as
/// vipsthumbnail does; a URL's outputs go to the current folder); an absolute one is used as it is. With
/// `--out-dir DIR`, outputs go under DIR at the source's path relative to the folder argument it was found in.
struct OutputTemplate: Sendable {
    let text: String
    /// The output format: `--format`, else the template's extension.
    let format: String

    static let placeholders: Set<Character> = ["s", "e", "z", "w", "h", "p", "%"]

    init(_ text: String, format explicit: String?) throws {
        guard !text.isEmpty, !text.hasSuffix("/") else { throw UsageError("-o needs a file name template such as tn_%s.jpg, not '\(text)'") }
        var index = text.startIndex
        while let percent = text[index...].firstIndex(of: "%") {
            let next = text.index(after: percent)
            guard next < text.endIndex, Self.placeholders.contains(text[next]) else {
                throw UsageError("-o '\(text)': unknown placeholder after % (known: %s %e %z %w %h %p %%)")
            }
            index = text.index(after: next)
        }
        let name = PathText.lastComponent(of: text)
        let ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]).lowercased() }
        if let explicit {
            self.text = ext == nil || ext!.contains("%") ? text + "." + explicit : text
            format = explicit
        } else {
            guard let ext, !ext.isEmpty, !ext.contains("%") else {
                throw UsageError("-o '\(text)' has no extension to choose the format from (or give --format)")
            }
            self.text = text
            format = ext
        }
    }

    func uses(_ placeholder: Character) -> Bool { text.contains("%\(placeholder)") }
    var namesSize: Bool { uses("z") || uses("w") || uses("h") }

    /// The output path for one source, size and page (or frame).
    func path(for source: BatchSource, size: PixelSize?, page: Int?, outputFolder: String?) -> String {
        var name = ""
        var characters = text.makeIterator()
        while let c = characters.next() {
            guard c == "%", let p = characters.next() else { name.append(c); continue }
            switch p {
            case "s": name += source.stem
            case "e": name += source.fileExtension
            case "z": name += size.map { "\($0.width)x\($0.height)" } ?? "original"
            case "w": name += size.map { "\($0.width)" } ?? "0"
            case "h": name += size.map { "\($0.height)" } ?? "0"
            case "p": name += "\(page ?? 0)"
            default: name.append(p)
            }
        }
        if name.hasPrefix("/") || ObjectOutput.isObjectURL(name) { return name }
        if let outputFolder {
            let relative = source.relativeFolder
            return outputFolder + (relative.isEmpty ? "" : "/" + relative) + "/" + name
        }
        return (source.folder ?? ".") + "/" + name
    }
}
