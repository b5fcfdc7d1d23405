import PluginAPI
import VersionedStructs

extension PluginLoader: DataLoading {
    public func canLoad(url: String) -> Bool { descriptor.schemes.contains(urlScheme(of: url)) }

    /// Starts the plugin's load and waits for `complete`; cancelling the task cancels the transfer.
    public func load(url: String, options: LoadOptions) async throws -> [UInt8] {
        try await load(url: url, options: options, hooks: LoadHooks())
    }

    /// Loads with host-side hooks: response validation (a rejected response stops the transfer) and progress.
    public func load(url: String, options: LoadOptions, hooks: LoadHooks) async throws -> [UInt8] {
        let loader = try opened()
        // A caller that vets every hop gets no redirect at all from a loader whose table predates the redirect
        // callback (ABI 1.0 start): it would follow hops without asking.
        let canVetRedirects = hooks.approveRedirect == nil || loader.entryPoints.isConfigurable
        let session = LoadSession(url: url, loaderID: descriptor.id, maxBytes: options.maxBytes, hooks: hooks)
        var callbacks = session.callbacks()
        var message = MessageBuffer()
        let task: OpaquePointer? = try withCStringArray(options.headers) { headers in
            try url.withCString { cURL in
                var request = ip_load_request(
                    struct_size: UInt32(MemoryLayout<ip_load_request>.size), url: cURL, headers: headers,
                    max_bytes: UInt64(options.maxBytes ?? 0),
                    timeout_ms: UInt32(clamping: Int((options.timeout ?? 0) * 1000)),
                    connect_timeout_ms: UInt32(clamping: Int((options.connectTimeout ?? 0) * 1000)),
                    max_redirects: UInt32(clamping: options.maxRedirects ?? 0),
                    flags: (options.refusePrivateAddresses ? UInt32(IP_LOAD_REFUSE_PRIVATE_ADDRESSES) : 0)
                        | (options.maxRedirects == 0 || !canVetRedirects ? UInt32(IP_LOAD_NO_REDIRECTS) : 0),
                    first_byte_timeout_ms: UInt32(clamping: Int((options.firstByteTimeout ?? 0) * 1000)))
                var task: OpaquePointer?
                let status = message.withMessage { m in PluginStatus(abi: loader.start(&request, &callbacks, &task, m)) }
                guard status == .ok else {
                    session.releaseUnstarted(callbacks)
                    throw PipelineError.loadingFailed(url: url, loader: descriptor.id, status: status, message: message.text)
                }
                return task
            }
        }
        let cancel = loader.entryPoints.table.cancel, release = loader.entryPoints.table.release
        // The task pointer is only passed back to the plugin that made it.
        nonisolated(unsafe) let handle = task
        // The instance outlives its task: it may be closed only after the task is released (loader.h).
        defer { release?(handle); withExtendedLifetime(loader) {} }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { session.wait($0) }
        } onCancel: {
            cancel?(handle)
        }
    }
}

/// Calls `body` with a NULL-terminated C array of strings (NULL when the list is empty).
func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws -> R) rethrows -> R {
    if strings.isEmpty { return try body(nil) }
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    var pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
    pointers.append(nil)
    return try pointers.withUnsafeBufferPointer { try body($0.baseAddress) }
}

#if canImport(Glibc)
import Glibc
#endif
