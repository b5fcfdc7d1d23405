import FoundationEssentials

/// `--shard K/N`: this run takes the sources whose stable hash (FNV-1a, 64-bit, of the source as named: the argument
/// or list line, or the folder argument and the path below it) is K modulo N. Deterministic across machines, runs and
/// resumes, and independent of the order sources are found in, so N machines each given one K produce exactly what
/// one run produces, and a rerun of a shard picks the same files (and skips its up-to-date outputs). K counts from
/// 0, as Kubernetes' JOB_COMPLETION_INDEX does; `--shard index/N` reads K from that variable.
struct BatchShard: Sendable, Equatable {
    let index: Int
    let count: Int

    init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[1]), (1...1_000_000).contains(count) else {
            throw UsageError("--shard takes K/N (K from 0 to N-1) or index/N, not '\(text)'")
        }
        let indexText: String
        if parts[0] == "index" {
            guard let given = environment["JOB_COMPLETION_INDEX"], !given.isEmpty else {
                throw UsageError("--shard index/\(count) reads JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's), which is not set")
            }
            indexText = given
        } else {
            indexText = String(parts[0])
        }
        guard let index = Int(indexText), (0..<count).contains(index) else {
            throw UsageError("--shard \(text): the shard index must be from 0 to \(count - 1), not '\(indexText)'")
        }
        self.init(index: index, count: count)
    }

    func contains(_ source: BatchSource) -> Bool {
        Int(Self.hash(source.display) % UInt64(count)) == index
    }

    static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}

/// One line of a `--manifest` file: a path or URL, or a JSON object naming one (`{"url": …}`, `{"source": …}`, or
/// an S3 inventory's `{"bucket": …, "key": …}`).
enum ManifestLine {
    private struct Object: Decodable {
        var url: String?
        var source: String?
        var bucket: String?
        var key: String?
    }

    static func source(_ line: String) -> String? {
        guard line.first == "{" else { return line }
        guard let object = try? JSONDecoder().decode(Object.self, from: Data(line.utf8)) else { return nil }
        if let url = object.url ?? object.source { return url }
        if let bucket = object.bucket, let key = object.key { return "s3://\(bucket)/\(key)" }
        return nil
    }
}
