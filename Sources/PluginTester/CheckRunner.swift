import Dispatch
import FoundationEssentials
import PipelineHost
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One check to run: its definition, the component it tests, and the child's arguments.
struct CheckTask: Sendable {
    let definition: CheckDefinition
    /// Index of the coder/loader/cache, and its ID for the report (nil for plugin checks).
    let component: Int?
    let componentID: String?
    let arguments: [String]
    let timeout: Double
    /// Crashes and hangs become warnings (hostile input to a coder that recommends isolation).
    let tolerateCrash: Bool
}

/// What the report shows for one check.
struct CheckOutcome: Codable, Sendable {
    let id: String
    let title: String
    let component: String?
    let result: CheckResult
    let seconds: Double
}

/// Runs checks in child processes of this executable (`imagepipe __plugin-check`), several at a time, each under
/// a timeout, and turns how each child ended into a status: its reported result, or crashed (with the signal and
/// what it was doing), timed out, or failed when it exited without a result.
struct CheckRunner {
    let executable: String
    let pluginPath: String

    /// Runs one task; `description` receives the plugin description when the child sends one.
    func run(_ task: CheckTask) -> (CheckOutcome, PluginDescription?) {
        let started = ChildProcess.now()
        var arguments = ["__plugin-check", task.definition.id, pluginPath, "--deadline", String(Int(task.timeout.rounded(.up)))]
        if let component = task.component { arguments += ["--component", String(component)] }
        arguments += task.arguments
        var result: CheckResult?
        var description: PluginDescription?
        var lastProgress: String?
        do {
            let child = try ChildProcess(executable: executable, arguments: arguments)
            let deadline = started + task.timeout
            var timedOut = false
            reading: while true {
                switch child.nextLine(until: deadline) {
                case .line(let line):
                    guard let space = line.firstIndex(of: " ") else { continue }
                    let kind = line[..<space], payload = Data(line[line.index(after: space)...].utf8)
                    switch kind {
                    case "progress": lastProgress = String(line[line.index(after: space)...])
                    case "result": result = try? JSONDecoder().decode(CheckResult.self, from: payload)
                    case "description": description = try? JSONDecoder().decode(PluginDescription.self, from: payload)
                    default: continue
                    }
                case .end: break reading
                case .timedOut: timedOut = true; break reading
                }
            }
            let termination = timedOut ? nil : child.finish(within: max(1, deadline - ChildProcess.now()))
            if termination == nil { child.kill(); _ = child.wait(until: ChildProcess.now() + 5) }
            result = classify(result, termination: termination, timeout: task.timeout, during: lastProgress,
                              stderr: child.errorText)
        } catch {
            result = CheckResult(status: .failed, message: "cannot start the check child: \(error)")
        }
        var final = result!
        if task.tolerateCrash, final.status == .crashed || final.status == .timedOut {
            final.details.insert("tolerated as a warning: the coder declares recommends-isolation, so the host runs it "
                                 + "in a child process; on hostile input it \(final.status == .crashed ? "crashed" : "hung")", at: 0)
            final.message = "\(final.status == .crashed ? "crashed" : "timed out") on hostile input: " + final.message
            final.status = .warning
        }
        let outcome = CheckOutcome(id: task.definition.id, title: task.definition.title, component: task.componentID,
                                   result: final, seconds: ChildProcess.now() - started)
        return (outcome, description)
    }

    private func classify(_ reported: CheckResult?, termination: ChildProcess.Termination?, timeout: Double, during: String?,
                          stderr: String) -> CheckResult {
        switch termination {
        case nil:
            return CheckResult(status: .timedOut, message: "did not finish within \(Int(timeout)) s (killed by the watchdog)",
                               during: during)
        case .signaled(let signal):
            let name = ChildProcess.signalName(signal)
            if signal == SIGALRM {
                return CheckResult(status: .timedOut, message: "did not finish before its deadline (SIGALRM)", during: during)
            }
            let tail = stderr.split(separator: "\n").suffix(3).joined(separator: " | ")
            return CheckResult(status: .crashed, message: "crashed with signal \(signal) (\(name))",
                               details: tail.isEmpty ? [] : ["stderr: \(tail.prefix(400))"], signal: signal, during: during)
        case .exited(let status):
            if var reported {
                // A non-zero exit with a result is the fault handler's or the watchdog's report: say where it was.
                if status != 0, reported.during == nil { reported.during = during }
                return reported
            }
            let tail = stderr.split(separator: "\n").suffix(3).joined(separator: " | ")
            return CheckResult(status: .failed, message: "the check child exited with status \(status) without a result"
                               + (tail.isEmpty ? "" : ": \(tail.prefix(400))"), during: during)
        }
    }

    /// Runs `tasks` on `jobs` workers; results come back in task order. `progress` is called as each finishes.
    func runAll(_ tasks: [CheckTask], jobs: Int, progress: @Sendable (Int, CheckOutcome) -> Void) -> [CheckOutcome] {
        let results = Mutex<[Int: CheckOutcome]>([:])
        let next = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        // Cache checks open the store the configuration names (a Redis namespace, a folder): one of them clears
        // it, so two at once would delete each other's entries. They run one at a time; the rest stay parallel.
        let sharedStore = Mutex(())
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, tasks.count))) { _ in
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < tasks.count else { return }
                let task = tasks[index]
                let (outcome, _) = task.definition.scope == .cache ? sharedStore.withLock { _ in run(task) } : run(task)
                results.withLock { $0[index] = outcome }
                progress(finished.wrappingAdd(1, ordering: .relaxed).newValue, outcome)
            }
        }
        return results.withLock { all in tasks.indices.compactMap { all[$0] } }
    }
}
