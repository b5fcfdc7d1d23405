import FoundationEssentials

/// Where the S3 loader's credentials, region and endpoint come from, found the way AWS's own tools find them, by
/// the host (a plugin reads no environment and no file: loader.h): the explicit configuration first
/// (`--loader-option s3:KEY=VALUE`, or what a library user passes), then `AWS_ACCESS_KEY_ID` /
/// `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`, then the profile `AWS_PROFILE` (else `default`) in
/// `~/.aws/credentials` and `~/.aws/config` (`AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE` move them); the region
/// from `AWS_REGION`, `AWS_DEFAULT_REGION` or the profile; the endpoint from `AWS_ENDPOINT_URL_S3`,
/// `AWS_ENDPOINT_URL` or the profile's `endpoint_url` (also inside its `s3 =` block, with `addressing_style`).
///
/// The result is configuration lines for the `s3` scheme, placed before the explicit ones (a later key wins), plus
/// `credentials-source`, which names where the keys were found so that an authentication error can say so without
/// ever printing the secret.
public enum S3LoaderEnvironment {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Lines to put before `explicit` (the `s3` scheme's own "key=value" lines). `environment`: the variables to
    /// use instead of the process's own; `readFile` returns a file's text or nil (tests pass their own of both).
    public static func configurationLines(environment: [String: String]? = nil, explicit: [String],
                                          readFile: (String) -> String? = Self.readFile) throws -> [String] {
        let given = Set(explicit.compactMap { line in line.firstIndex(of: "=").map { line[..<$0].trimmedBlanks } })
        func env(_ name: String) -> String? {
            (environment.map { $0[name] } ?? LinuxSystem.environment(name)).flatMap { $0.isEmpty ? nil : $0 }
        }
        let home = env("HOME") ?? ""
        let profileName = env("AWS_PROFILE") ?? env("AWS_DEFAULT_PROFILE") ?? "default"
        let credentialsPath = env("AWS_SHARED_CREDENTIALS_FILE") ?? home + "/.aws/credentials"
        let configPath = env("AWS_CONFIG_FILE") ?? home + "/.aws/config"
        let credentialsFile = readFile(credentialsPath).map(SharedFile.init(parsing:))
        let configFile = readFile(configPath).map(SharedFile.init(parsing:))
        // In the credentials file a profile is [name]; in the config file [profile name], and [default] for default.
        let fromCredentials = credentialsFile?.sections[profileName]
        let fromConfig = configFile?.sections[profileName == "default" ? "default" : "profile " + profileName]
        if env("AWS_PROFILE") != nil, fromCredentials == nil, fromConfig == nil {
            throw Failure(description: "AWS_PROFILE=\(profileName): no such profile in \(credentialsPath) or \(configPath)")
        }

        var lines: [String] = []
        func add(_ key: String, _ value: String?) {
            guard let value, !value.isEmpty, !given.contains(key) else { return }
            lines.append("\(key)=\(value)")
        }
        if !given.contains("access-key-id") && !given.contains("secret-access-key") {
            if let key = env("AWS_ACCESS_KEY_ID"), let secret = env("AWS_SECRET_ACCESS_KEY") {
                add("access-key-id", key)
                add("secret-access-key", secret)
                add("session-token", env("AWS_SESSION_TOKEN") ?? env("AWS_SECURITY_TOKEN"))
                add("credentials-source", "the environment (AWS_ACCESS_KEY_ID)")
            } else if let (section, path) = [(fromCredentials, credentialsPath), (fromConfig, configPath)]
                        .first(where: { $0.0?.values["aws_access_key_id"] != nil }).map({ ($0.0!, $0.1) }) {
                add("access-key-id", section.values["aws_access_key_id"])
                add("secret-access-key", section.values["aws_secret_access_key"])
                add("session-token", section.values["aws_session_token"])
                add("credentials-source", "profile '\(profileName)' in \(path)")
            }
        } else if !given.contains("credentials-source") {
            lines.append("credentials-source=the loader configuration (--loader-option s3:access-key-id)")
        }
        add("region", env("AWS_REGION") ?? env("AWS_DEFAULT_REGION") ?? fromConfig?.values["region"])
        add("endpoint", env("AWS_ENDPOINT_URL_S3") ?? env("AWS_ENDPOINT_URL") ?? fromConfig?.nested["s3"]?["endpoint_url"]
            ?? fromConfig?.values["endpoint_url"])
        if let style = fromConfig?.nested["s3"]?["addressing_style"], style == "path" || style == "virtual" { add("addressing", style) }
        return lines
    }

    public static func readFile(_ path: String) -> String? {
        guard !path.isEmpty, let bytes = LinuxSystem.readSmallFile(path, limit: (1 << 20) - 1) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The INI shape of AWS's shared files: `[section]`, `key = value`, `#`/`;` comments, and indented
    /// `key = value` lines under a `name =` line (a nested block such as `s3 =`).
    struct SharedFile {
        struct Section {
            var values: [String: String] = [:]
            var nested: [String: [String: String]] = [:]
        }
        var sections: [String: Section] = [:]

        init(parsing text: String) {
            var current: String?
            var block: String?
            for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
                let indented = raw.first == " " || raw.first == "\t"
                let line = raw.trimmedBlanks
                if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
                if line.hasPrefix("["), line.hasSuffix("]") {
                    let name = line.dropFirst().dropLast().trimmedBlanks
                    current = name.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                    block = nil
                    if let current, sections[current] == nil { sections[current] = Section() }
                    continue
                }
                guard let current, let equals = line.firstIndex(of: "=") else { continue }
                let key = line[..<equals].trimmedBlanks.lowercased()
                let value = line[line.index(after: equals)...].trimmedBlanks
                if indented, let block {
                    sections[current]?.nested[block, default: [:]][key] = value
                } else if value.isEmpty {
                    block = key
                } else {
                    block = nil
                    sections[current]?.values[key] = value
                }
            }
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (FoundationEssentials has no trimmingCharacters).
    fileprivate var trimmedBlanks: String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
