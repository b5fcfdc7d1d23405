import Foundation
import PipelineHost
import PluginAPI
import Synchronization
import Testing
import TestSupport

/// Stopping transfers: the host's cancel, a rejected response, a data callback that says stop.
@Suite("HTTP loader: cancellation")
struct HTTPLoaderCancellationTests {
    /// 100 000 bytes in 1000 chunks 100 ms apart: 100 s if nothing stops it.
    static let verySlow = "/slow?bytes=100000&delay=100&chunk=100"

    @Test("cancelling the awaiting task stops a slow transfer with PipelineError.cancelled")
    func cancelThroughHost() async throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let loaders = try HTTPLoaderTesting.loaders()
        let url = served.url(Self.verySlow)
        let load = Task { try await loaders.load(url: url) }
        try await Task.sleep(for: .milliseconds(300))
        load.cancel()
        switch await load.result {
        case .success(let bytes):
            Issue.record("the load finished with \(bytes.count) bytes although it was cancelled")
        case .failure(let error):
            #expect((error as? PipelineError)?.status == .cancelled, "\(error)")
        }
        // No time bound (tests make no timed assertions; a loaded CI machine starves the task pool): a cancel that
        // did not stop the transfer would have ended in .success after 100 s, which the switch above records.
    }

    @Test("cancel() mid-body completes with CANCELLED, once")
    func cancelMidBody() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let raw = try RawHTTPLoader()
        let firstData = DispatchSemaphore(value: 0)
        let recording = Recording(onData: { _ in firstData.signal() })
        let running = try raw.start(served.url(Self.verySlow), recording: recording)
        #expect(firstData.wait(timeout: .now() + 30) == .success)
        running.cancel()
        running.cancel()  // a second cancel is harmless
        let outcome = running.wait()
        #expect(outcome.finished)
        #expect(outcome.status == IP_STATUS_CANCELLED)
        #expect(outcome.followsContract)
        #expect(outcome.body.count < 100_000)
    }

    @Test("cancel() right after start, before the engine has added the transfer, completes with CANCELLED")
    func cancelImmediately() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let raw = try RawHTTPLoader()
        for _ in 0..<20 {
            let running = try raw.start(served.url(Self.verySlow))
            running.cancel()
            let outcome = running.wait()
            #expect(outcome.status == IP_STATUS_CANCELLED)
            #expect(outcome.followsContract)
        }
    }

    @Test("cancel() after complete changes nothing")
    func cancelAfterComplete() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let raw = try RawHTTPLoader()
        let recording = Recording()
        let running = try raw.start(served.url("/image.png"), recording: recording)
        #expect(recording.done.wait(timeout: .now() + 30) == .success)
        running.cancel()  // before release: allowed by the ABI, must not complete a second time
        recording.done.signal()  // wait() consumes one signal
        let outcome = running.wait()
        #expect(outcome.status == IP_STATUS_OK)
        #expect(outcome.followsContract)
    }

    @Test("a rejected response() stops the transfer with CANCELLED and delivers no data")
    func rejectedResponse() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let outcome = try RawHTTPLoader().load(served.url("/image.png"), recording: Recording(rejectResponse: true))
        #expect(outcome.status == IP_STATUS_CANCELLED)
        #expect(outcome.message == "the host rejected the response")
        #expect(outcome.body.isEmpty)
        #expect(outcome.followsContract)
    }

    @Test("a data() that returns non-zero stops the transfer with CANCELLED at that chunk")
    func stoppedByData() throws {
        let served = try HTTPLoaderTesting.server()
        defer { served.close() }
        let outcome = try RawHTTPLoader().load(served.url("/big?bytes=10000000"), recording: Recording(stopAfterBytes: 1))
        #expect(outcome.status == IP_STATUS_CANCELLED)
        #expect(outcome.message == "the host stopped the transfer")
        #expect(outcome.events.filter { if case .data = $0 { true } else { false } }.count == 1)
        #expect(outcome.followsContract)
    }
}
