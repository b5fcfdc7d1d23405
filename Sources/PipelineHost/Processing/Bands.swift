import Dispatch

/// Splits `count` independent items (rows) into contiguous bands run on all cores at once.
///
/// Why: a 12 MP photo resampled to 1024 px spends ~70 ms in the Lanczos passes on one core, while every other step
/// around it (decoders with threads, the worker's render) already uses both. Small jobs stay on the calling thread:
/// below about a million operations per band, dispatching costs more than it saves.
struct Bands {
    let ranges: [Range<Int>]

    /// `costPerItem`: rough operations per item, to decide how many bands are worth it.
    init(count: Int, costPerItem: Int, cores: Int) {
        let total = max(0, count) * max(1, costPerItem)
        let bands = max(1, min(cores, count, total / 1_000_000))
        ranges = (0..<bands).map { band in (count * band / bands)..<(count * (band + 1) / bands) }
    }

    /// Runs `body` once per band; bands run concurrently and `body` must touch only its band's output.
    func run(_ body: (Range<Int>) -> Void) {
        guard ranges.count > 1 else {
            ranges.forEach(body)
            return
        }
        withoutActuallyEscaping(body) { body in
            let shared = SharedBody(body: body)
            let ranges = ranges
            DispatchQueue.concurrentPerform(iterations: ranges.count) { band in shared.body(ranges[band]) }
        }
    }
}

/// The band body, handed to Dispatch's threads. `@unchecked Sendable` because the bodies capture raw pointers
/// into buffers that outlive `run` (it returns only when every band has), and the bands write disjoint rows.
private struct SharedBody: @unchecked Sendable {
    let body: (Range<Int>) -> Void
}
