#if canImport(Glibc)
import Glibc
#endif

/// The signing key and salt, from `--key`/`--salt`, `--key-file`/`--salt-file` or IMAGEPIPE_KEY/IMAGEPIPE_SALT.
///
/// Files exist because a value on the command line is visible to every user through `ps` and /proc: the packaged
/// service reads its key from a file only it can read (systemd's `LoadCredential=`). Errors never repeat the value.
enum SigningSecrets {
    static let valued: Set<String> = ["key", "salt", "key-file", "salt-file"]

    /// The bytes of one secret (`name` is "key" or "salt"), or nil when none was given.
    static func read(_ name: String, _ args: Arguments, environment variable: String) throws -> [UInt8]? {
        if args.value(name) != nil, args.value("\(name)-file") != nil {
            throw UsageError("give --\(name) or --\(name)-file, not both")
        }
        if let path = args.value("\(name)-file") {
            return try hex(try contents(of: path, option: "--\(name)-file"), name: "--\(name)-file \(path)")
        }
        return try hex(args.value(name) ?? getenv(variable).map { String(cString: $0) }, name: "--\(name)")
    }

    /// The file's text without surrounding white space (a trailing newline from `echo` or an editor is normal).
    /// A file others may read is used but reported: the secret is only as private as the file.
    static func contents(of path: String, option: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw UsageError("\(option) \(path): \(String(cString: strerror(errno)).lowercased())")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= 4096 else {
            throw UsageError("\(option) \(path): not a regular file of at most 4 KiB")
        }
        if status.st_mode & 0o077 != 0 {
            Output.error("imagepipe serve: warning: \(option) \(path) can be read by other users (mode \(String(status.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw UsageError("\(option) \(path): \(String(cString: strerror(errno)).lowercased())") }
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        return String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }

    static func hex(_ text: String?, name: String) throws -> [UInt8]? {
        guard let text else { return nil }
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, !digits.isEmpty else { throw UsageError("\(name) must be hex digits (an even number of them)") }
        return try stride(from: 0, to: digits.count, by: 2).map { i in
            guard let byte = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else {
                throw UsageError("\(name) must be hex digits (the value is not repeated here: it is a secret)")
            }
            return byte
        }
    }
}
