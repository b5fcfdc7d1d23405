import Foundation

/// Whole-file reads and writes of bytes, for fixtures and reference-tool outputs.
public enum TestFiles {
    public static func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes `bytes` to `path` (creating or replacing the file) and returns the path.
    @discardableResult
    public static func write(_ bytes: [UInt8], to path: String) throws -> String {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw TestSupportError("cannot write \(path)")
        }
        return path
    }
}
