import PluginAPI

extension DecodeRequestView {
    /// Throws NOT_FOUND for a page beyond the first of a single-page format; `format` names it with its article
    /// ("a GIF"), so the message reads "a GIF has one page; page 2 does not exist".
    public func requireSinglePage(_ format: String) throws {
        if options.page_index > 0 {
            throw PluginFailure.notFound("\(format) has one page; page \(options.page_index) does not exist")
        }
    }

    /// The frame a decode asks for; NOT_FOUND when a later frame is asked together with first-frame-only.
    public func requestedFrame() throws -> Int {
        let wanted = Int(options.frame_index)
        if wanted > 0, has(UInt32(IP_DECODE_FIRST_FRAME_ONLY)) {
            throw PluginFailure.notFound("frame \(wanted) was asked together with first-frame-only")
        }
        return wanted
    }
}
