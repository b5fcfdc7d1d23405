import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Writing to the terminal and to files.
enum Output {
    static func line(_ text: String = "") { print(text) }

    static func error(_ text: String) {
        let line = text.hasSuffix("\n") ? text : text + "\n"
        _ = line.withCString { Glibc.write(2, $0, strlen($0)) }
    }

    /// Pretty, key-sorted JSON on standard output.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Left-aligned columns separated by two spaces.
    static func table(_ header: [String], _ rows: [[String]]) {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padded(to: widths[index])
            }
            print(cells.joined(separator: "  "))
        }
    }

    /// Writes bytes to `path` atomically (temporary file + rename), so a failed render never leaves half a file.
    static func write(_ bytes: [UInt8], to path: String) throws {
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIError("cannot write \(path): \(error)")
        }
    }
}

/// A failure to report on one line, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension String {
    /// Pads with spaces on the right to `width` characters.
    func padded(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
