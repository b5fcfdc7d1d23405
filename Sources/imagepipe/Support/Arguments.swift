/// A small command-line parser: `--name value`, `--name=value`, boolean flags, repeatable options, positionals.
///
/// Hand-written because no package outside the toolchain can be fetched; strict so typos fail loudly.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments` given which options take a value and which are plain flags (names without dashes;
    /// a single-letter name is also accepted with one dash).
    init(_ arguments: [String], valued: Set<String>, flags allowedFlags: Set<String>) throws {
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
            if valued.contains(name) {
                guard let value = inlineValue ?? (index < arguments.count ? arguments[index] : nil) else {
                    throw UsageError("option '--\(name)' needs a value")
                }
                if inlineValue == nil { index += 1 }
                values[name, default: []].append(value)
            } else if allowedFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError("option '--\(name)' takes no value") }
                flags.insert(name)
            } else {
                throw UsageError("unknown option '\(argument)'")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }

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
