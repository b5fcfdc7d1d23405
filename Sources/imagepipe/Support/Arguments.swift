/// A small command-line parser: `--name value`, `--name=value`, boolean flags, repeatable options, positionals.
///
/// Hand-written because no package outside the toolchain can be fetched; strict so typos fail loudly. What it
/// accepts is exactly what the command's help declares (`OptionSection`): an option exists once, in the table.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// Every declared option by each of its names.
    private let declared: [String: Option]

    /// Parses `arguments` against the options `sections` declare (`--help` is handled before parsing).
    init(_ arguments: [String], sections: [OptionSection]) throws {
        var declared: [String: Option] = [:]
        // The first declaration of a name wins: a command's own section comes before the shared ones it overrides.
        for option in sections.flatMap(\.options) { for name in option.names where declared[name] == nil { declared[name] = option } }
        self.declared = declared
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            var name = String(argument.drop(while: { $0 == "-" }))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if argument.hasPrefix("--") == false && name.count > 1 {
                throw UsageError("unknown option '\(argument)' (long options take two dashes)")
            }
            guard let option = declared[name] else { throw UsageError("unknown option '\(argument)'") }
            // All names of an option are one: `-o x` and `--output x` land in the same place.
            let key = option.names.last!
            if option.value != nil {
                guard let value = inlineValue ?? (index < arguments.count ? arguments[index] : nil) else {
                    throw UsageError("option '--\(name)' needs a value")
                }
                if inlineValue == nil { index += 1 }
                values[key, default: []].append(value)
            } else {
                guard inlineValue == nil else { throw UsageError("option '--\(name)' takes no value") }
                flags.insert(key)
            }
        }
    }

    /// Where the values of the option called `name` are kept (all names of an option share one place). An option
    /// the command does not declare reads as not given: shared readers (DecodeArguments reads --gravity) serve
    /// commands that do not take every option they read, and the parser has already refused it if the user typed it.
    private func key(_ name: String) -> String { declared[name]?.names.last ?? name }

    func flag(_ name: String) -> Bool { flags.contains(key(name)) }
    /// Whether the user gave the option (a default does not count).
    func given(_ name: String) -> Bool { values[key(name)] != nil }
    /// The last value given, else the declared default.
    func value(_ name: String) -> String? { values[key(name)]?.last ?? declared[name]?.defaultValue }
    func all(_ name: String) -> [String] { values[key(name)] ?? [] }

    func int(_ name: String, range: ClosedRange<Int> = 0...Int.max) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// `--timeout`, `--connect-timeout` and the like: seconds above 0, at most a day; nil when not given.
    func seconds(_ name: String) throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let value = Double(text), value > 0, value <= 86_400 else {
            throw UsageError("--\(name) must be a number of seconds above 0, not '\(text)'")
        }
        return value
    }
}

/// A mistake in how the command was called: printed with a hint to use --help, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
