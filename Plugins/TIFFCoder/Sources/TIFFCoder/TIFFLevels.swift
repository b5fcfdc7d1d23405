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
/// A copy stands in for the page only when that gives the page's result up to resampling (the rule of the HEIF
/// coder's embedded thumbnails): it covers the drawn size in both dimensions, the host's placement on it yields the
/// same output size, its aspect is within 3 % of the page's, and it has alpha exactly when the page has.
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

    static let maxAspectDifference = 0.03
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

    /// The smallest copy that can stand in for the page at the request's size, or nil (decode the page itself).
    /// `page` is the page's stored size; `transposed` when its orientation swaps width and height.
    static func choose(_ levels: [Level], page: (width: Int, height: Int), transposed: Bool, request view: DecodeRequestView) -> Level? {
        guard view.thumbnailSize != nil, page.width > 0, page.height > 0 else { return nil }
        func display(_ width: Int, _ height: Int) -> (Double, Double) {
            transposed ? (Double(height), Double(width)) : (Double(width), Double(height))
        }
        let (fullWidth, fullHeight) = display(page.width, page.height)
        let wanted = Host.place(sourceWidth: fullWidth, sourceHeight: fullHeight, options: view.options)
        let drawnWidth = Double(roundDimension(fullWidth * wanted.scale_x))
        let drawnHeight = Double(roundDimension(fullHeight * wanted.scale_y))
        let aspect = fullWidth / fullHeight
        let usable = levels.filter { level in
            let (width, height) = display(level.width, level.height)
            guard width * height < fullWidth * fullHeight, width >= drawnWidth, height >= drawnHeight,
                  abs(width / height / aspect - 1) <= maxAspectDifference else { return false }
            let placed = Host.place(sourceWidth: width, sourceHeight: height, options: view.options)
            return placed.out_width == wanted.out_width && placed.out_height == wanted.out_height
        }
        return usable.min { $0.width * $0.height < $1.width * $1.height }
    }
}
