import CCurl
import Synchronization

/// Easy handles kept between transfers, so that loads and exchanges reuse their connections to the store (each
/// handle has its own connection cache; the process-wide share holds only DNS answers and TLS sessions, since
/// libcurl 7.88 cannot share connections between threads safely). A handle serves one transfer at a time: taken
/// before a transfer, reset (every option dropped, the connections kept) and given back after it.
public enum S3CurlHandles {
    /// An idle handle; `@unchecked`: it is used by one thread at a time, between take() and give().
    private struct Idle: @unchecked Sendable { let easy: UnsafeMutableRawPointer }

    /// More than the threads that run transfers at once in a busy process would be memory for idle sockets.
    static let kept = 32
    private static let idle = Mutex<[Idle]>([])

    /// An idle handle, or a new one; nil when libcurl cannot make one.
    public static func take() -> UnsafeMutableRawPointer? {
        idle.withLock { $0.popLast() }?.easy ?? curl_easy_init()
    }

    /// Ends `easy`'s part in a transfer: its options are reset at once (so it holds no pointer to the caller's
    /// header list or buffers, which are freed next), and it waits for the next transfer, or is closed when enough
    /// wait already.
    public static func give(_ easy: UnsafeMutableRawPointer) {
        curl_easy_reset(easy)
        let keep = idle.withLock { handles -> Bool in
            guard handles.count < kept else { return false }
            handles.append(Idle(easy: easy))
            return true
        }
        if !keep { curl_easy_cleanup(easy) }
    }
}
