#if canImport(Glibc)
import Glibc
#endif

/// One end of a host ⇄ worker socketpair (AF_UNIX, SOCK_SEQPACKET): sends and receives `WorkerMessage`s with an
/// optional descriptor, and waits for the peer with a deadline and a cancellation check.
///
/// Sends use MSG_NOSIGNAL (a dead peer is an error, never a SIGPIPE that would kill the host); received descriptors
/// are close-on-exec from the start (MSG_CMSG_CLOEXEC), so they cannot leak into a worker spawned concurrently.
struct WorkerChannel {
    let fd: Int32

    /// CMSG_ALIGN(sizeof(struct cmsghdr)): where the data of a control message starts.
    private static let controlHeader = (MemoryLayout<cmsghdr>.size + 7) & ~7
    /// Room for a few descriptors, so that a peer sending more than one is noticed (and the extras closed).
    private static let controlCapacity = controlHeader + 4 * MemoryLayout<Int32>.size

    enum Received {
        case message(WorkerMessage)
        /// The peer closed its end (it exited or crashed).
        case closed
    }

    enum Wait {
        case readable
        case timedOut
        case cancelled
    }

    /// Sends one message; the caller still owns (and closes) `message.descriptor`.
    func send(_ message: WorkerMessage) throws {
        var bytes = message.encoded
        var control = [UInt8](repeating: 0, count: Self.controlHeader + 8)
        let sent: Int = bytes.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    if message.descriptor >= 0 {
                        let cmsg = controlBytes.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                        cmsg.pointee.cmsg_len = Self.controlHeader + MemoryLayout<Int32>.size
                        cmsg.pointee.cmsg_level = SOL_SOCKET
                        cmsg.pointee.cmsg_type = Int32(SCM_RIGHTS)
                        controlBytes.storeBytes(of: message.descriptor, toByteOffset: Self.controlHeader, as: Int32.self)
                        header.msg_control = controlBytes.baseAddress
                        header.msg_controllen = controlBytes.count
                    }
                    while true {
                        let n = sendmsg(fd, &header, Int32(MSG_NOSIGNAL))
                        if n < 0, errno == EINTR { continue }
                        return n
                    }
                }
            }
        }
        guard sent == bytes.count else {
            throw WorkerProtocolError(sent < 0 ? "send failed: \(LinuxSystem.describe(errno))" : "short send")
        }
    }

    /// Receives one message (blocking); `.closed` when the peer is gone.
    func receive() throws -> Received {
        var buffer = [UInt8](repeating: 0, count: WorkerMessage.headerSize + WorkerMessage.maxBody)
        var control = [UInt8](repeating: 0, count: Self.controlCapacity)
        var descriptors: [Int32] = []
        var flags: Int32 = 0
        let received: Int = buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBytes.baseAddress
                    header.msg_controllen = controlBytes.count
                    var n: Int
                    repeat { n = recvmsg(fd, &header, Int32(MSG_CMSG_CLOEXEC)) } while n < 0 && errno == EINTR
                    guard n >= 0 else { return n }
                    flags = header.msg_flags
                    descriptors = Self.descriptors(in: UnsafeRawBufferPointer(rebasing: controlBytes[0..<min(header.msg_controllen, controlBytes.count)]))
                    return n
                }
            }
        }
        if received < 0 {
            if errno == ECONNRESET { return .closed }
            throw WorkerProtocolError("receive failed: \(LinuxSystem.describe(errno))")
        }
        if received == 0 && descriptors.isEmpty { return .closed }
        guard flags & Int32(MSG_TRUNC) == 0, flags & Int32(MSG_CTRUNC) == 0, descriptors.count <= 1 else {
            descriptors.forEach(LinuxSystem.closeDescriptor)
            throw WorkerProtocolError("oversized message, or more than one descriptor")
        }
        do {
            var message = try buffer.withUnsafeBytes { try WorkerMessage(parsing: UnsafeRawBufferPointer(rebasing: $0[0..<received])) }
            message.descriptor = descriptors.first ?? -1
            return .message(message)
        } catch {
            descriptors.forEach(LinuxSystem.closeDescriptor)
            throw error
        }
    }

    /// The SCM_RIGHTS descriptors in a control buffer.
    private static func descriptors(in control: UnsafeRawBufferPointer) -> [Int32] {
        var result: [Int32] = []
        var offset = 0
        while offset + controlHeader <= control.count {
            let length = control.loadUnaligned(fromByteOffset: offset, as: Int.self)
            let level = control.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
            let type = control.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
            guard length >= controlHeader, offset + length <= control.count else { break }
            if level == SOL_SOCKET, type == Int32(SCM_RIGHTS) {
                let count = (length - controlHeader) / MemoryLayout<Int32>.size
                for index in 0..<count {
                    result.append(control.loadUnaligned(fromByteOffset: offset + controlHeader + index * 4, as: Int32.self))
                }
            }
            offset += (length + 7) & ~7
        }
        return result
    }

    /// Waits until a message (or the peer's exit) can be read, the deadline passes, or `isCancelled` turns true.
    /// Cancellation is polled every `slice` seconds; a reply wakes the wait at once.
    func wait(until deadline: Double?, slice: Double = 0.01, isCancelled: () -> Bool) -> Wait {
        while true {
            if isCancelled() { return .cancelled }
            var timeout = slice
            if let deadline {
                let left = deadline - LinuxSystem.now()
                if left <= 0 { return .timedOut }
                timeout = min(timeout, left)
            }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(max(1, (timeout * 1000).rounded(.up))))
            if ready > 0 { return .readable }
            if ready < 0, errno != EINTR { return .readable }  // let receive() report the error
        }
    }

    /// What is pending on the socket right now (checked without blocking).
    enum Pending {
        case nothing
        case message
        /// The peer closed its end or the socket failed.
        case hangUp
    }

    var pending: Pending {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return .nothing }
        if entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .hangUp }
        return entry.revents & Int16(POLLIN) != 0 ? .message : .nothing
    }
}
