import HTTPServerShim
#if canImport(Glibc)
import Glibc
#endif

/// libmicrohttpd behind a Swift face: each request reaches `handle` on a server thread, which answers it at once
/// (cache hits, errors, health) or later from any thread (renders), exactly once. Why libmicrohttpd: a GNU
/// library packaged by Debian (libmicrohttpd-dev), made to be embedded, with HTTP/1.1 keep-alive, pipelining,
/// a thread pool over epoll, connection limits and timeouts, and suspend/resume for answers computed
/// elsewhere — what a thumbnail service needs and nothing it does not (no TLS termination: a proxy does that).
final class HTTPServer: @unchecked Sendable {
    // @unchecked: `server` is written once in init and freed once in stop(); the C library synchronises itself.
    private var server: OpaquePointer?
    /// The handler, reached from the C callback through the context pointer; kept alive as long as the server.
    private let box: HandlerBox
    let port: UInt16

    /// How many connections, from whom, for how long.
    struct Limits {
        var threads = 1
        var connections = 10_000
        /// Connections at once from one client address: one client (a slowloris) cannot take every slot.
        var perClient = 64
        /// Seconds without traffic before a connection is closed.
        var idleTimeout = 15
        /// Seconds for a whole request head after connecting (or max(this, idleTimeout) after the previous answer
        /// on a kept-alive connection): the idle timeout alone lets a byte a second hold a connection for ever.
        var headerTimeout = 10
        /// SO_REUSEPORT (several processes sharing the port on purpose).
        var reusePort = false
    }

    init(address: String, port: UInt16, limits: Limits, handle: @escaping @Sendable (HTTPRequest) -> Void) throws {
        box = HandlerBox(handle)
        var error = [CChar](repeating: 0, count: 512)
        var settings = ip_httpd_settings(threads: UInt32(max(1, limits.threads)), connection_limit: UInt32(limits.connections),
                                         per_client_limit: UInt32(limits.perClient), idle_timeout_seconds: UInt32(limits.idleTimeout),
                                         header_timeout_seconds: UInt32(limits.headerTimeout), reuse_port: limits.reusePort ? 1 : 0)
        guard let started = ip_httpd_start(address, port, &settings, { context, request in
                                               guard let context, let request else { return }
                                               Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue().handle(HTTPRequest(request))
                                           }, Unmanaged.passUnretained(box).toOpaque(), &error, error.count) else {
            throw CLIError("serve: " + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        server = started
        self.port = ip_httpd_port(started)
    }

    /// Requests begun and not yet answered on the wire (0 after stop()).
    var activeRequests: Int { server.map { Int(ip_httpd_active($0)) } ?? 0 }

    /// Connections shut since start because their request head was overdue.
    var overdueHeads: Int { server.map { Int(ip_httpd_overdue_heads($0)) } ?? 0 }

    /// Stops accepting connections; the open ones are served to the end.
    func quiesce() { if let server { ip_httpd_quiesce(server) } }

    /// Answers every request still waiting for its handler (status, headers, body; connection closed), so that
    /// `stop()` finds no suspended connection. Returns how many it answered.
    @discardableResult
    func answerWaiting(_ status: Int, headers: [(String, String)], body: [UInt8]) -> Int {
        guard let server else { return 0 }
        return withCHeaders(headers) { names, values in
            body.withUnsafeBufferPointer { b in
                Int(ip_httpd_answer_waiting(server, UInt32(status), names, values, headers.count, b.baseAddress, b.count))
            }
        }
    }

    func stop() {
        if let server { ip_httpd_stop(server) }
        server = nil
    }
}

/// Header names and values as two C string arrays, for the duration of `body`. Every answer pays this, so the
/// strings share one buffer (NUL-terminated, side by side) rather than taking an allocation each.
private func withCHeaders<R>(_ headers: [(String, String)],
                             _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    var text: [CChar] = []
    text.reserveCapacity(headers.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 2 })
    var starts: [Int] = []
    starts.reserveCapacity(headers.count * 2)
    func add(_ string: String) {
        starts.append(text.count)
        for byte in string.utf8 { text.append(CChar(bitPattern: byte)) }
        text.append(0)
    }
    for (name, value) in headers {
        add(name)
        add(value)
    }
    return text.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return body(nil, nil) }
        let names = stride(from: 0, to: starts.count, by: 2).map { UnsafePointer<CChar>?(base + starts[$0]) }
        let values = stride(from: 1, to: starts.count, by: 2).map { UnsafePointer<CChar>?(base + starts[$0]) }
        return names.withUnsafeBufferPointer { n in values.withUnsafeBufferPointer { v in body(n.baseAddress, v.baseAddress) } }
    }
}

/// The request handler behind the C context pointer.
private final class HandlerBox: Sendable {
    let handle: @Sendable (HTTPRequest) -> Void
    init(_ handle: @escaping @Sendable (HTTPRequest) -> Void) { self.handle = handle }
}

/// One request. Its strings are read during the handler call; `respond` may come later, from any thread, once.
struct HTTPRequest: @unchecked Sendable {
    // @unchecked: a C handle the shim keeps valid until respond(), which it serialises.
    private let request: OpaquePointer

    init(_ request: OpaquePointer) { self.request = request }

    var method: String { String(cString: ip_httpd_method(request)) }
    var path: String { String(cString: ip_httpd_path(request)) }
    var version: String { String(cString: ip_httpd_version(request)) }

    /// A request header, during the handler call only.
    func header(_ name: String) -> String? { ip_httpd_header(request, name).map { String(cString: $0) } }

    /// The client's address, during the handler call only.
    var client: String {
        var buffer = [CChar](repeating: 0, count: 64)
        ip_httpd_client(request, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Exactly once per request, also when a stop already answered it (the call releases the request).
    func respond(_ status: Int, headers: [(String, String)], body: [UInt8], close: Bool = false) {
        _ = withCHeaders(headers) { names, values in
            body.withUnsafeBufferPointer { b in
                ip_httpd_respond(request, UInt32(status), names, values, headers.count, b.baseAddress, b.count, close ? 1 : 0)
            }
        }
    }
}
