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
