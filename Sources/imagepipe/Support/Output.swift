import FoundationEssentials
import PipelineHost
#if canImport(Glibc)
import Glibc
#endif

/// Writing to the terminal and to files.
enum Output {
    static func line(_ text: String = "") { print(text) }

    /// One line on the real standard error (see `LibraryOutput`): embedded newlines of library messages are
    /// folded, so a script sees exactly one line per failure.
    static func error(_ text: String) {
        let line = FailureReport.oneLine(text) + "\n"
        _ = line.withCString { Glibc.write(LibraryOutput.standardError, $0, strlen($0)) }
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

    /// Writes bytes to `path` atomically (see `OutputFile` for the rules on links and read-only files).
    /// `loaders`: for an object URL (`-o s3://…`), written by its scheme's loader (ObjectOutput); `format` names its
    /// media type.
    static func write(_ bytes: [UInt8], to path: String, force: Bool = false, format: String = "", loaders: LoadersManager? = nil) throws {
        if let loaders, ObjectOutput.isObjectURL(path) {
            return try ObjectOutput.write(bytes, to: path, format: format, stamp: nil, loaders: loaders)
        }
        do {
            if path == "-" { return try OutputFile.writeStandardOutput(bytes) }
            try OutputFile.write(bytes, to: path, force: force)
        } catch let failure as OutputFile.Failure {
            throw CLIError(failure.description)
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
