import CTIFF
import PluginAPI
import PluginKit

/// Reduced-resolution copies of a page — pyramids as libvips, GDAL and ImageMagick write them — used as
/// shrink-on-load: a thumbnail decodes the smallest copy that still covers what the host will draw, as vips does for
/// pyramids, instead of the full page.
///
/// Two layouts hold them: an overview chain (directories flagged FILETYPE_REDUCEDIMAGE after their page in the main
/// chain: vips `--pyramid`, ImageMagick `PTIF:`, GDAL's internal overviews) and SubIFDs (the page's SubIFD tag:
/// vips `--subifd`, OME-TIFF, DNG previews). Copies inside a SubIFD's own SubIFDs (deeper trees) are not followed.
///
/// A copy stands in for the page by PluginKit's `StandIn` rule (the one HEIF's embedded thumbnails follow), and only
/// when it has alpha exactly when the page has.
enum TIFFLevels {
    struct Level {
        enum Place: Equatable {
            case directory(Int)
            case subIFD(UInt64)
        }
        let place: Place
        /// Stored size (before the page's orientation).
        let width: Int
        let height: Int
    }

    /// At most this many copies per page are considered (a hostile file may list thousands of SubIFDs).
    static let maxLevels = 64

    /// The page's reduced copies, read from the file's directories; the page is current again afterwards.
    static func levels(of file: TIFFFile, page index: Int) throws -> [Level] {
        var levels: [Level] = []
        try file.select(page: index)
        let pageAlpha = file.hasAlpha
        let first = file.pages[index]
        let next = index + 1 < file.pages.count ? file.pages[index + 1] : file.directoryCount
        // Overview chain: every directory between this page and the next is a reduced copy (TIFFFile's pages are
        // exactly the directories that are not).
        for directory in (first + 1)..<max(first + 1, next) where levels.count < maxLevels {
            guard TIFFSetDirectory(file.tiff, tdir_t(directory)) != 0 else { break }
            let (width, height) = file.storedSize
            if width > 0, height > 0, file.hasAlpha == pageAlpha { levels.append(Level(place: .directory(directory), width: width, height: height)) }
        }
        try file.select(page: index)
        for offset in file.subIFDOffsets().prefix(maxLevels) where levels.count < maxLevels {
            guard TIFFSetSubDirectory(file.tiff, offset) != 0 else { continue }
            var kind: UInt32 = 0
            let reduced = ip_tiff_u32(file.tiff, UInt32(TIFFTAG_SUBFILETYPE), &kind) != 0 && kind & UInt32(FILETYPE_REDUCEDIMAGE) != 0
            let (width, height) = file.storedSize
            if reduced, width > 0, height > 0, file.hasAlpha == pageAlpha {
                levels.append(Level(place: .subIFD(offset), width: width, height: height))
            }
        }
        try file.select(page: index)
        return levels
    }

    /// The smallest copy that can stand in for the page at the request's size (PluginKit's `StandIn` rule), or nil
    /// (decode the page itself). `page` is the page's stored size; `transposed` when its orientation swaps width and
    /// height, which it does for its copies alike.
    static func choose(_ levels: [Level], page: (width: Int, height: Int), transposed: Bool, request view: DecodeRequestView) -> Level? {
        func display(_ width: Int, _ height: Int) -> (width: Int, height: Int) { transposed ? (height, width) : (width, height) }
        let full = display(page.width, page.height)
        return StandIn(full: full.width, full.height, request: view)?.smallest(of: levels) { display($0.width, $0.height) }
    }
}
