import PipelineHost
#if canImport(Glibc)
import Glibc
#endif

/// Outputs at object URLs (`-o s3://bucket/key`, `--out-dir s3://bucket/prefix`): written by the loader plugin of
/// that scheme, which writes too (ABI 1.1 `put`), so the CLI knows no store's protocol and the credentials are the
/// ones s3:// sources use. A batch's resume stamp travels as the object's metadata (`imagepipe-thumbnail`, as the
/// extended attribute does on disk), so a rerun skips the objects that are up to date, as it skips files.
enum ObjectOutput {
    static let stampName = "imagepipe-thumbnail"

    /// An output that is not a local path: "scheme://…" other than file://.
    static func isObjectURL(_ path: String) -> Bool {
        guard let range = path.firstRange(of: "://") else { return false }
        let scheme = path[..<range.lowerBound]
        return !scheme.isEmpty && scheme.lowercased() != "file" && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }

    static func write(_ bytes: [UInt8], to url: String, format: String, stamp: String?, loaders: LoadersManager) throws {
        do {
            try loaders.writer(for: url).put(bytes, to: url, contentType: MediaType.name(for: format),
                                              metadata: stamp.map { [(stampName, encoded($0))] } ?? [])
        } catch PipelineError.loadingFailed(_, let loader, let status, let message) {
            throw CLIError("cannot write \(url): \(message.isEmpty ? status.description : message) (\(loader), \(status))")
        } catch let error as PipelineError {
            throw CLIError("cannot write \(url): \(error)")
        }
    }

    /// True when the object exists, carries exactly `stamp`, and was stored after the source last changed.
    static func isUpToDate(_ url: String, stamp: String, sourceStatus: stat?, loaders: LoadersManager) -> Bool {
        guard let object = try? loaders.writer(for: url).describe(url), object.metadata[stampName].map(decoded) == stamp else { return false }
        if let source = sourceStatus, let modified = object.modified, modified < Int64(source.st_mtim.tv_sec) { return false }
        return true
    }

    /// Metadata values are printable ASCII (a store signs them as header values): '%' and every other byte are
    /// percent-encoded, so a source path with "ü" or a line break survives.
    static func encoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if byte >= 0x20, byte < 0x7F, byte != 0x25 { result.unicodeScalars.append(Unicode.Scalar(byte)) } else {
                let digits = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return result
    }

    static func decoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == 0x25, let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { bytes.append(byte); continue }
            bytes.append(value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
