import Foundation

/// A loopback port that refuses connections for as long as this value lives: a socket bound to it that never
/// listens. A connect gets ECONNREFUSED, and no other test's server can bind the port meanwhile.
///
/// Why not `RedisServer.freePort()` for "a closed port": that port is free only at the moment it is returned. Under
/// the full suite another test's server (a FaultProxy that stalls, say) can be given the same port, and a test that
/// meant to reach nothing then holds that server's connection open until its own deadline, which the other test saw
/// as its client closing 20 s late.
public final class ClosedPort: @unchecked Sendable {
    // @unchecked: the descriptor is set in init and closed once, under the lock.
    public let port: Int
    private var descriptor: Int32
    private let lock = NSLock()

    public init() throws {
        (descriptor, port) = try LoopbackSocket.bound(listening: false)
    }

    /// Lets the port go (deinit does it too).
    public func release() {
        lock.lock()
        defer { lock.unlock() }
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}

/// A TCP socket on 127.0.0.1 bound to a port the kernel picks: the one place the tests' servers and ports get one.
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
}
