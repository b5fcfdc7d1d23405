import Foundation

/// How the tests get loopback ports: bound here to a port the kernel picks, or announced by a helper process that
/// bound its own (FaultProxy, CountingListener). Either way the port is never free between being picked and being
/// bound, as one from `RedisServer.freePort()` is (see ClosedPort).
public enum LoopbackSocket {
    /// The descriptor (close-on-exec) and its port; `listening` also makes it accept connections into its backlog.
    public static func bound(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && (!listening || listen(fd, 16) == 0) && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TestSupportError("bind\(listening ? "/listen" : ""): \(reason)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The port a helper process wrote to `file` once it listens (it writes a temporary file and renames it, so the
    /// file is whole when it appears); stops the process and throws when none comes within 5 s.
    public static func announced(by process: Process, in file: String, name: String) throws -> Int {
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: file) { usleep(10_000) }
        guard let port = (try? String(contentsOfFile: file, encoding: .utf8)).flatMap({ Int($0) }) else {
            if process.isRunning { process.terminate() }
            throw TestSupportError("\(name) did not start (no port in \(file))")
        }
        return port
    }
}
