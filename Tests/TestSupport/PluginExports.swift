import Foundation

/// What a built plugin exports, for the "exports only imagepipe_plugin_entry" checks every plugin makes.
public enum PluginExports {
    /// The global dynamic symbols `nm -D --defined-only` lists for `library` (a file name in
    /// `TestPaths.pluginsDirectory`), or nil after printing why the caller skips when nm is not installed.
    ///
    /// Only upper-case symbol types count: Swift plugins list a few local (lower-case) PluginKit symbols that
    /// are not exported.
    public static func globalSymbols(of library: String) throws -> [String]? {
        guard CommandLine.hasTool("nm") else { try Skip.because("nm (binutils) is not installed", bootstrapProvides: true) }
        let nm = try CommandLine.shell("nm -D --defined-only '\(TestPaths.pluginsDirectory)/\(library)'")
        guard nm.status == 0 else { throw TestSupportError("nm failed for \(library): \(nm.stderr)") }
        return nm.stdout.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1].first?.isUppercase == true else { return nil }
            return String(fields[2])
        }
    }
}
