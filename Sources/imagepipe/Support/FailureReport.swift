import PipelineHost

/// A failure tied to the file or URL it concerns, so the one error line can name it.
struct SubjectError: Error {
    let subject: String
    let underlying: any Error
}

/// Runs `body`, tagging any failure with `subject` (the source a render or info works on).
func about<T>(_ subject: String, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as SubjectError {
        throw error
    } catch let error as UsageError {
        throw error
    } catch {
        throw SubjectError(subject: subject, underlying: error)
    }
}

/// The one line a failed command prints: `imagepipe <command>: <subject>: <what failed>; <what fixes it> [E<code>]`.
///
/// Library messages can carry newlines (libxml's parser errors end with one); they are folded so that a script
/// reading stderr sees exactly one line per failure. Where a flag or an action fixes the failure, the line names it.
enum FailureReport {
    static func line(command: String, error: any Error) -> String {
        var subject: String?
        var error = error
        if let tagged = error as? SubjectError {
            subject = tagged.subject
            error = tagged.underlying
        }
        var text = "\(error)"
        if let subject, !text.contains(subject) { text = "\(subject): \(text)" }
        if let hint = hint(for: error) { text += "; \(hint)" }
        if let pipeline = error as? PipelineError { text += " [E\(pipeline.code)]" }
        return "imagepipe \(command): " + oneLine(text)
    }

    /// Newlines, carriage returns and tabs become single spaces; runs of spaces shrink to one; ends trimmed.
    static func oneLine(_ text: String) -> String {
        var result = ""
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            let isSpace = scalar == " " || scalar == "\n" || scalar == "\r" || scalar == "\t"
            if isSpace {
                if !lastWasSpace { result.append(" ") }
            } else if scalar.value < 0x20 || scalar.value == 0x7F {
                result.append("?")  // other control characters from a library message would garble a terminal
            } else {
                result.unicodeScalars.append(scalar)
            }
            lastWasSpace = isSpace
        }
        while result.hasSuffix(" ") { result.removeLast() }
        return result
    }

    /// The flag or action that fixes `error`, when there is one.
    static func hint(for error: any Error) -> String? {
        guard let error = error as? PipelineError else { return nil }
        switch error {
        case .decodingFailed(_, let status, let message), .encodingFailed(_, let status, let message):
            let lowered = message.lowercased()
            if lowered.contains("password") {
                return lowered.contains("incorrect") ? "check the --password given" : "give the password with --password"
            }
            if status == .notFound, lowered.contains("page") {
                return "pages are numbered from 0 ('imagepipe info' lists them)"
            }
            if status == .notFound, lowered.contains("frame") {
                return "frames are numbered from 0 ('imagepipe info' counts them)"
            }
            if status == .limitExceeded, lowered.contains("pixel") {
                return "raise --max-pixels if the file is trusted, or ask a smaller --size"
            }
            if status == .limitExceeded, lowered.contains("memory") { return "raise --max-memory if the file is trusted" }
            return nil
        case .pixelLimitExceeded:
            return "raise --max-pixels if the result is wanted, or ask a smaller --size"
        case .memoryBudgetExceeded:
            return "raise --max-memory if the result is wanted, or ask a smaller --size"
        case .timedOut, .timedOutInProcess: return "raise --timeout for a file known to be slow"
        case .memoryLimitExceeded: return "raise --max-memory if the file is trusted"
        case .unknownFormat: return "'imagepipe coders' lists the formats the installed plugins read"
        case .noLoader: return "'imagepipe loaders' lists the URL schemes the installed plugins load"
        default: return nil
        }
    }
}
