#if canImport(Glibc)
import Glibc
#endif

/// Standard input as a source (`render -`) or as a list of sources (`thumbnail -`).
enum StandardInput {
    /// Every byte until end of input, refused past `limit` (the request's input limit): a pipe that never ends must
    /// not grow the process without bound.
    static func readAll(limit: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError("cannot read standard input: \(OutputFile.errorText(errno))")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if limit > 0, bytes.count > limit {
                throw CLIError("standard input is larger than the input limit of \(limit) bytes")
            }
        }
    }

    /// True when standard input is a terminal (nothing was piped in: reading would wait for typing).
    static var isTerminal: Bool { isatty(0) != 0 }
}
