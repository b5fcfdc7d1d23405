/// One command-line option, declared once: the parser learns from it whether the option takes a value, `--help`
/// prints it, and a declared default is what the parser hands out when the option is not given (and what the help
/// says, through `{default}` in its text), so the three cannot drift apart.
///
/// The shape of swift-argument-parser's `@Option`/`@Flag` (name, value name, help, default), as plain values:
/// that package cannot be fetched here.
struct Option: Sendable {
    /// Without dashes; a one-letter name is the short form (`-o`).
    let names: [String]
    /// The value's name in the help (`FILE`, `SECONDS`); nil for a flag.
    let value: String?
    /// The default, as the user would type it; nil when there is none or it is computed (the help says which).
    let defaultValue: String?
    /// The help: its first line beside the option, the others below it at the section's column. `{default}`
    /// stands for `defaultValue`.
    let help: String

    init(_ names: String..., value: String? = nil, default defaultValue: String? = nil, help: String) {
        self.names = names
        self.value = value
        self.defaultValue = defaultValue
        self.help = help
    }

    /// `-o, --output FILE`.
    var label: String {
        names.map { $0.count == 1 ? "-" + $0 : "--" + $0 }.joined(separator: ", ") + (value.map { " " + $0 } ?? "")
    }

    var helpLines: [String] {
        let text = defaultValue.map { help.replacing("{default}", with: $0) } ?? help
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}

/// A titled block of a command's help, and the options it declares.
struct OptionSection: Sendable {
    enum Row: Sendable {
        /// One option and its help.
        case option(Option)
        /// Several options on one line (`--key HEX, --salt HEX`), sharing a help text.
        case shared([Option], String)
        /// Lines printed as they are (an example, a placeholder list, a paragraph); they declare nothing.
        case text(String)
    }

    /// `Decode options:`; nil for a block without a title line.
    let title: String?
    /// Where help text starts, counted from the line's start.
    let column: Int
    let rows: [Row]

    init(_ title: String?, column: Int, _ rows: [Row]) {
        self.title = title
        self.column = column
        self.rows = rows
    }

    var options: [Option] {
        rows.flatMap { row -> [Option] in
            switch row {
            case .option(let option): [option]
            case .shared(let options, _): options
            case .text: []
            }
        }
    }

    /// The block as `--help` prints it.
    var text: String {
        var lines: [String] = title.map { [$0] } ?? []
        for row in rows {
            switch row {
            case .option(let option): lines += entry(option.label, option.helpLines)
            case .shared(let options, let help): lines += entry(options.map(\.label).joined(separator: ", "), help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            case .text(let text): lines += text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `  LABEL  first line` with the label padded to the column (or two spaces when it is longer), then the other
    /// lines at the column.
    private func entry(_ label: String, _ help: [String]) -> [String] {
        let head = "  " + label
        let first = head.count + 1 <= column ? head.padded(to: column) : head + "  "
        let indent = String(repeating: " ", count: column)
        return [first + (help.first ?? "")] + help.dropFirst().map { $0.isEmpty ? "" : indent + $0 }
    }
}

extension [OptionSection] {
    /// The sections as `--help` prints them, a blank line between two.
    var text: String { map(\.text).joined(separator: "\n\n") }
}
