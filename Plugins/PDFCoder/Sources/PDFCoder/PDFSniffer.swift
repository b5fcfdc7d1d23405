import PluginAPI

/// Confirms the catch-all magic pattern: is there a `%PDF-` header within the first 1024 bytes?
///
/// poppler itself looks for the header anywhere in the first 1024 bytes (and even then only warns), so a
/// file with leading junk still opens; searching the same window keeps sniffing as tolerant as the library
/// without claiming every file on earth.
enum PDFSniffer {
    static let header: [UInt8] = Array("%PDF-".utf8)
    static let searchWindow = 1024

    /// OK when the header is found; NEED_MORE when fewer than 1024 bytes end with the start of a header that
    /// more bytes could complete; UNSUPPORTED otherwise. Reads at most 1024 bytes, allocates nothing.
    static func sniff(_ data: UnsafePointer<UInt8>?, _ size: Int) -> ip_status {
        guard let data, size > 0 else { return ip_status(IP_STATUS_UNSUPPORTED) }
        let window = min(size, searchWindow)
        if window >= header.count {
            for start in 0...(window - header.count) where matches(data, at: start, length: header.count) {
                return ip_status(IP_STATUS_OK)
            }
        }
        if size < searchWindow {
            // A header cut off by the end of the bytes seen so far ("...%PD"): more bytes may complete it.
            for length in stride(from: min(header.count - 1, window), through: 1, by: -1)
            where matches(data, at: window - length, length: length) {
                return ip_status(IP_STATUS_NEED_MORE)
            }
        }
        return ip_status(IP_STATUS_UNSUPPORTED)
    }

    /// True when the `length` bytes at `start` equal the first `length` bytes of the header.
    private static func matches(_ data: UnsafePointer<UInt8>, at start: Int, length: Int) -> Bool {
        for index in 0..<length where data[start + index] != header[index] { return false }
        return true
    }
}
