import FoundationEssentials

/// The outcome of one check, as the check child reports it and as the report shows it.
struct CheckResult: Codable, Sendable {
    enum Status: String, Codable, Sendable {
        case passed, warning, failed, crashed
        case timedOut = "timed-out"
        case skipped

        /// Statuses that make `imagepipe plugin test` exit non-zero.
        var isFailure: Bool { self == .failed || self == .crashed || self == .timedOut }
    }

    var status: Status
    /// One line for people.
    var message: String
    /// Further findings, one per line (every problem, not just the first).
    var details: [String] = []
    /// The signal that killed the child (crashed).
    var signal: Int32?
    /// What the child was doing when it crashed or hung (its last progress line).
    var during: String?

    init(status: Status, message: String, details: [String] = [], signal: Int32? = nil, during: String? = nil) {
        self.status = status
        self.message = message
        self.details = details
        self.signal = signal
        self.during = during
    }

    private enum CodingKeys: String, CodingKey { case status, message, details, signal, during }

    /// Lenient: a result written by the fault handler (a fixed string) carries only status and message.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Status.self, forKey: .status)
        message = try container.decode(String.self, forKey: .message)
        details = try container.decodeIfPresent([String].self, forKey: .details) ?? []
        signal = try container.decodeIfPresent(Int32.self, forKey: .signal)
        during = try container.decodeIfPresent(String.self, forKey: .during)
    }

    /// One-line JSON for the child protocol.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) }
            ?? #"{"status":"failed","message":"cannot encode the result"}"#
    }
}
