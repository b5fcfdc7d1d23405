/// A loader instance's configuration as the host hands it over (ABI 1.1 `ip_loader.open`): "key=value" lines.
///
/// A loader reads the keys it documents and ends with `refuseUnknown(known:)`, so a misspelt key fails the open
/// with a message naming it rather than being ignored (loader.h).
public struct LoaderConfiguration: Sendable, Equatable {
    /// The pairs in the order given; a later repeat of a key overrides an earlier one.
    public let pairs: [(key: String, value: String)]

    /// What the lines configure ("loader", "encoder"), for messages.
    public let component: String

    public init(parsing text: String?, component: String = "loader") throws {
        self.component = component
        var pairs: [(key: String, value: String)] = []
        for line in (text ?? "").split(separator: "\n", omittingEmptySubsequences: true) {
            let trimmed = line.trimmingBlanks
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw PluginFailure.unsupported("configuration line '\(trimmed)' is not key=value")
            }
            let key = String(trimmed[..<equals]).trimmingBlanks
            guard !key.isEmpty else { throw PluginFailure.unsupported("configuration line '\(trimmed)' has no key") }
            pairs.append((key, String(trimmed[trimmed.index(after: equals)...]).trimmingBlanks))
        }
        self.pairs = pairs
    }

    /// The value given for `key` (the last one when repeated), or nil.
    public func value(for key: String) -> String? { pairs.last { $0.key == key }?.value }

    /// An integer value in `range`, or nil when the key is absent; a value that is not one fails naming the key.
    public func integer(for key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(for: key) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw PluginFailure.unsupported("configuration \(key)=\(text): expected a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Fails naming the first key outside `known`.
    public func refuseUnknown(known: [String]) throws {
        if let unknown = pairs.first(where: { !known.contains($0.key) }) {
            let list = known.isEmpty ? "this \(component) takes no settings" : "known keys: " + known.joined(separator: ", ")
            let what = component == "loader" ? "configuration key" : "\(component) setting"
            throw PluginFailure.unsupported("unknown \(what) '\(unknown.key)' (\(list))")
        }
    }

    public static func == (a: LoaderConfiguration, b: LoaderConfiguration) -> Bool {
        a.pairs.map(\.key) == b.pairs.map(\.key) && a.pairs.map(\.value) == b.pairs.map(\.value)
    }
}

extension StringProtocol {
    fileprivate var trimmingBlanks: String {
        let blanks: Set<Character> = [" ", "\t", "\r"]
        var slice = Substring(self)
        while let first = slice.first, blanks.contains(first) { slice.removeFirst() }
        while let last = slice.last, blanks.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
