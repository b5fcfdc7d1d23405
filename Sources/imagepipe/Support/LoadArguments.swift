import PipelineHost

/// The download options of every command that loads a source: deadlines and the redirect and destination policy,
/// turned into the library's `LoadOptions` here, on the loading side (not by the isolation setup, which only
/// shares `--timeout` with them).
enum LoadArguments {

    /// Rows of the commands' help, under their isolation options (same column).
    static let rows: [OptionSection.Row] = [
        .option(Option("connect-timeout", value: "SECONDS", help: "deadline of connecting to a remote source (default 10, at most --timeout)")),
        .option(Option("first-byte-timeout", value: "SECONDS", help: "deadline of the server's first response byte (default 30, at most --timeout)")),
        .option(Option("max-redirects", value: "N", help: "redirects a download may follow (default 10; http and https only)")),
        .option(Option("refuse-private-addresses", help: """
            refuse loopback, private, link-local and other non-public destinations,
            checked on the resolved address of every connection and redirect (SSRF protection)
            """)),
    ]

    /// The download's deadlines: `--timeout` bounds the whole transfer as it bounds a decode (a server that never
    /// answers held a render for the loader's fixed 60 s before), `--connect-timeout` the connection,
    /// `--first-byte-timeout` the wait for the server's answer; `--max-redirects` and `--refuse-private-addresses`
    /// are the redirect and destination policy.
    static func loadOptions(_ arguments: Arguments) throws -> LoadOptions {
        var options = LoadOptions()
        if let total = try arguments.seconds("timeout") {
            options.timeout = total
            options.connectTimeout = min(10, total)
        }
        if let connect = try arguments.seconds("connect-timeout") {
            options.connectTimeout = min(connect, options.timeout ?? connect)
        }
        if let firstByte = try arguments.seconds("first-byte-timeout") {
            options.firstByteTimeout = min(firstByte, options.timeout ?? firstByte)
        }
        options.maxRedirects = try arguments.int("max-redirects", range: 0...100)
        options.refusePrivateAddresses = arguments.flag("refuse-private-addresses")
        return options
    }
}
