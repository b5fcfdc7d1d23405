/// `--pages`: which pages of a document a batch renders, counted from 0 as `--page` and `imagepipe info` count them.
///
/// Ranges are clipped to each document's pages (`--pages 0-2` over a folder of PDFs gives a one-page PDF its one
/// page, as `pdftoppm -f 1 -l 3` does); a source of which no selected page exists is an error.
enum PageSelection: Equatable, CustomStringConvertible {
    case all
    /// Sorted, non-overlapping, inclusive.
    case ranges([ClosedRange<Int>])

    static let first = PageSelection.ranges([0...0])

    init(parsing text: String) throws {
        let spec = text.trimmingWhitespace()
        if spec == "all" { self = .all; return }
        var ranges: [ClosedRange<Int>] = []
        for part in spec.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), low >= 0, low <= 1_000_000,
                  let high = bounds.count == 2 ? Int(bounds[1]) : low, high >= low, high <= 1_000_000 else {
                throw UsageError("--pages must be all, or pages and ranges counted from 0 such as 0-2,6, not '\(text)'")
            }
            ranges.append(low...high)
        }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<Int>] = []
        for range in ranges {
            if let last = merged.last, range.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self = .ranges(merged)
    }

    /// The selected pages of a document of `count` pages.
    func pages(of count: Int) -> [Int] {
        switch self {
        case .all: return Array(0..<max(count, 0))
        case .ranges(let ranges): return ranges.flatMap { range in range.filter { $0 < count } }
        }
    }

    /// Whether more than one page can be selected (the output template then needs %p).
    var mayBeSeveral: Bool {
        switch self {
        case .all: return true
        case .ranges(let ranges): return ranges.count > 1 || ranges.contains { $0.count > 1 }
        }
    }

    var description: String {
        switch self {
        case .all: return "all"
        case .ranges(let ranges): return ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return String(text)
    }
}
