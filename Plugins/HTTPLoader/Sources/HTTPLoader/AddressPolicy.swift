import CCurl
#if canImport(Glibc)
import Glibc
#endif
import PluginAPI
import PluginKit

/// IP_LOAD_REFUSE_PRIVATE_ADDRESSES: a load may reach public addresses only.
///
/// Checked on addresses, never on host names: libcurl hands every resolved address to `openSocket` before it
/// connects (so a name that resolves to 127.0.0.1, or re-resolves there later — DNS rebinding — is refused), and
/// `beforeRequest` sees the address of the connection each request is about to be sent on, new or reused, for the
/// first URL and every redirect.
enum AddressPolicy {
    /// Why `address` (4 or 16 bytes, network order) is not a public destination; nil when it is.
    static func refusal(_ address: [UInt8]) -> String? {
        if address.count == 4 { return ipv4Refusal(address) }
        guard address.count == 16 else { return "an address of \(address.count) bytes" }
        let prefix = Array(address.prefix(12))
        // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach IPv4.
        if prefix == [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF]
            || (prefix == [UInt8](repeating: 0, count: 12) && address[12...].contains { $0 != 0 } && address != loopback6)
            || prefix == [0x00, 0x64, 0xFF, 0x9B] + [UInt8](repeating: 0, count: 8) {
            return ipv4Refusal(Array(address[12...]))
        }
        if address == [UInt8](repeating: 0, count: 16) { return "unspecified (::)" }
        if address == loopback6 { return "loopback (::1)" }
        if address[0] & 0xFE == 0xFC { return "unique-local (fc00::/7)" }
        if address[0] == 0xFE, address[1] & 0xC0 == 0x80 { return "link-local (fe80::/10)" }
        if address[0] == 0xFE, address[1] & 0xC0 == 0xC0 { return "site-local (fec0::/10)" }
        if address[0] == 0xFF { return "multicast (ff00::/8)" }
        return nil
    }

    private static let loopback6 = [UInt8](repeating: 0, count: 15) + [1]

    private static func ipv4Refusal(_ a: [UInt8]) -> String? {
        switch (a[0], a[1]) {
        case (0, _): return "unspecified (0.0.0.0/8)"
        case (10, _): return "private (10.0.0.0/8)"
        case (100, 64...127): return "carrier-grade NAT (100.64.0.0/10)"
        case (127, _): return "loopback (127.0.0.0/8)"
        case (169, 254): return "link-local (169.254.0.0/16)"
        case (172, 16...31): return "private (172.16.0.0/12)"
        case (192, 0) where a[2] == 0: return "IETF protocol assignments (192.0.0.0/24)"
        case (192, 168): return "private (192.168.0.0/16)"
        case (198, 18...19): return "benchmarking (198.18.0.0/15)"
        case (224...239, _): return "multicast (224.0.0.0/4)"
        case (240...255, _): return "reserved (240.0.0.0/4)"
        default: return nil
        }
    }

    /// The address bytes of a textual IPv4 or IPv6 address; nil when it is neither.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// The address bytes and text of a socket address libcurl resolved.
    static func describe(_ address: UnsafeRawPointer, family: Int32) -> (bytes: [UInt8], text: String)? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if family == AF_INET {
            var raw = address.loadUnaligned(as: sockaddr_in.self).sin_addr
            inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            return (withUnsafeBytes(of: raw) { Array($0) }, String(cString: text))
        }
        if family == AF_INET6 {
            var raw = address.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
            return (withUnsafeBytes(of: raw) { Array($0) }, String(cString: text))
        }
        return nil
    }

    /// CURLOPT_OPENSOCKETFUNCTION: refuses to create a socket for a non-public address (libcurl then tries the
    /// host's next address, if any), otherwise creates it as libcurl would.
    static let openSocket: curl_opensocket_callback = { context, _, address in
        guard let address else { return CURL_SOCKET_BAD }
        let family = address.pointee.family
        let described = withUnsafePointer(to: &address.pointee.addr) { describe(UnsafeRawPointer($0), family: family) }
        guard let described else {
            // Unix sockets and other families are never destinations of an http(s) URL.
            HTTPLoadTask.from(context)?.refuse(address: "an address of family \(family)", reason: "not an IP address")
            return CURL_SOCKET_BAD
        }
        if let reason = refusal(described.bytes) {
            HTTPLoadTask.from(context)?.refuse(address: described.text, reason: reason)
            return CURL_SOCKET_BAD
        }
        return socket(family, address.pointee.socktype, address.pointee.protocol)
    }

    /// CURLOPT_PREREQFUNCTION: the last check before a request is sent, on the connection's actual peer.
    static let beforeRequest: ip_curl_prereq_callback = { context, primaryIP, _, _, _ in
        guard let primaryIP else { return Int32(CURL_PREREQFUNC_ABORT) }
        let text = String(cString: primaryIP)
        guard let bytes = bytes(of: text) else {
            HTTPLoadTask.from(context)?.refuse(address: text, reason: "not an IP address")
            return Int32(CURL_PREREQFUNC_ABORT)
        }
        if let reason = refusal(bytes) {
            HTTPLoadTask.from(context)?.refuse(address: text, reason: reason)
            return Int32(CURL_PREREQFUNC_ABORT)
        }
        return Int32(CURL_PREREQFUNC_OK)
    }
}

extension HTTPLoadTask {
    /// The task behind a callback's context pointer (CURLOPT_*DATA), without changing its reference count.
    static func from(_ context: UnsafeMutableRawPointer?) -> HTTPLoadTask? {
        context.map { Unmanaged<HTTPLoadTask>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Records why the transfer could not go on; the completion reports it instead of libcurl's generic error.
    func refuse(address: String, reason: String) {
        stopReason = PluginFailure(IP_STATUS_REFUSED, "refused to connect to \(address), a \(reason) address: this load allows public addresses only")
    }
}
