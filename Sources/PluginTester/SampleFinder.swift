#if canImport(Glibc)
import Glibc
#endif
import PipelineHost

/// Chooses a coder's sample files: files under the samples folder whose extension is one of the coder's.
///
/// With a corpus manifest (`manifest.tsv`: path, role, format, expected_outcome, ...), rows with role `test` and
/// outcome `ok` outside `bad/` are samples; `error`, `limit`, `reference-tool-fails` and everything in `bad/` are
/// hostile inputs the coder must reject or survive. Without a manifest, `bad/` folders hold the hostile inputs.
/// How many are used grows with the strictness; small files are preferred so the whole run stays quick.
struct SampleFinder {
    let root: String?

    struct Choice {
        var samples: [String] = []
        var hostile: [String] = []
    }

    /// `../shared/corpus` beside the repository the executable was built in, when it exists.
    static func defaultRoot() -> String? {
        guard let repository = repositoryRoot() else { return nil }
        let corpus = parent(repository) + "/shared/corpus"
        return isDirectory(corpus) ? corpus : nil
    }

    /// The source tree the executable was built in (the folder with Package.swift above it), if any.
    static func repositoryRoot() -> String? {
        guard var directory = PluginSearchPath.currentExecutablePath() else { return nil }
        for _ in 0..<6 {
            directory = parent(directory)
            if directory == "/" { break }
            if access(directory + "/Package.swift", F_OK) == 0 { return directory }
        }
        return nil
    }

    func choose(for coder: PluginDescription.Coder, strictness: Int) -> Choice {
        guard let root else { return Choice() }
        var samples: [(String, Int)] = []
        var hostile: [(String, Int)] = []
        let extensions = Set(coder.extensions + [coder.format])
        for (path, outcome) in candidates(root: root) {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            guard !name.hasSuffix(".ref.png"), let dot = name.lastIndex(of: ".") else { continue }
            guard extensions.contains(name[name.index(after: dot)...].lowercased()) else { continue }
            let size = fileSize(root + "/" + path)
            guard size >= 0 else { continue }
            if outcome == "ok" && !path.hasPrefix("bad/") && !path.contains("/bad/") {
                samples.append((root + "/" + path, size))
            } else {
                hostile.append((root + "/" + path, size))
            }
        }
        // Large inputs make every check slow; below strictness 10 they are left out when smaller ones exist.
        let sizeCap = strictness >= 10 ? Int.max : 512 * 1024
        let sampleCount = strictness >= 10 ? Int.max : strictness >= 8 ? 12 : strictness >= 5 ? 5 : 3
        let hostileCount = strictness >= 10 ? Int.max : strictness >= 8 ? 24 : strictness >= 5 ? 12 : 4
        return Choice(samples: spread(samples, count: sampleCount, sizeCap: sizeCap),
                      hostile: spread(hostile, count: hostileCount, sizeCap: strictness >= 10 ? Int.max : 4 << 20))
    }

    /// `count` files spread evenly over the size range (smallest and largest under the cap included), by name order
    /// for ties so a run is reproducible.
    private func spread(_ files: [(String, Int)], count: Int, sizeCap: Int) -> [String] {
        var pool = files.filter { $0.1 <= sizeCap }
        if pool.isEmpty { pool = Array(files.sorted { $0.1 < $1.1 }.prefix(1)) }
        pool.sort { ($0.1, $0.0) < ($1.1, $1.0) }
        guard pool.count > count else { return pool.map(\.0) }
        if count == 1 { return [pool[0].0] }
        let picks = (0..<count).map { $0 * (pool.count - 1) / (count - 1) }
        return Array(Set(picks)).sorted().map { pool[$0].0 }
    }

    /// (path relative to root, expected outcome) of every candidate file.
    private func candidates(root: String) -> [(String, String)] {
        if let manifest = Samples.readFile(root + "/manifest.tsv") {
            let lines = String(decoding: manifest, as: UTF8.self).split(separator: "\n")
            guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init),
                  let pathColumn = header.firstIndex(of: "path") else { return [] }
            let roleColumn = header.firstIndex(of: "role"), outcomeColumn = header.firstIndex(of: "expected_outcome")
            return lines.dropFirst().compactMap { line in
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard fields.count > pathColumn else { return nil }
                if let roleColumn, fields.count > roleColumn, fields[roleColumn] != "test" { return nil }
                let outcome = outcomeColumn.flatMap { fields.count > $0 ? fields[$0] : nil } ?? "ok"
                return (fields[pathColumn], outcome)
            }
        }
        return walk(root, prefix: "").map { ($0, $0.hasPrefix("bad/") || $0.contains("/bad/") ? "error" : "ok") }
    }

    /// Regular files under `directory`, relative, at most 4 levels deep.
    private func walk(_ directory: String, prefix: String, depth: Int = 0) -> [String] {
        guard depth < 4, let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var found: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(".") { continue }
            let full = directory + "/" + name
            if SampleFinder.isDirectory(full) {
                found += walk(full, prefix: prefix + name + "/", depth: depth + 1)
            } else {
                found.append(prefix + name)
            }
        }
        return found.sorted()
    }

    private func fileSize(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return -1 }
        return Int(info.st_size)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
