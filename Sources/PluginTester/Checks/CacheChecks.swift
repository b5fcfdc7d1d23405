import Dispatch
import PluginAPI
import Synchronization

/// Caches: the operations of cache.h with their statuses, limits of keys and values, and concurrent use.
enum CacheChecks {
    static let all: [CheckDefinition] = [operations, concurrency]

    static let operations = CheckDefinition(id: "cache.operations", title: "put/get/remove/clear/overwrite/missing key, big values, long keys",
                                            scope: .cache) { context in
        let cache = try context.cache()
        let opened = cache.open(context.settings.cacheConfiguration)
        guard opened.status == IP_STATUS_OK else {
            context.fail("open(\(context.settings.cacheConfiguration ?? "NULL")) returned \(StatusName.of(opened.status)): \(opened.message)")
            return
        }
        defer { cache.close(opened.store) }
        let store = opened.store
        let prefix = "imagepipe-plugin-test-\(context.settings.seed)-"
        func expect(_ status: Int32, _ wanted: Int32, _ what: String) {
            if status != wanted { context.fail("\(what) returned \(StatusName.of(status)), expected \(StatusName.of(wanted))") }
        }
        let missing = cache.get(store, prefix + "missing")
        expect(missing.status, IP_STATUS_NOT_FOUND, "get of a missing key")
        expect(cache.put(store, prefix + "a", [1, 2, 3]), IP_STATUS_OK, "put")
        let got = cache.get(store, prefix + "a")
        expect(got.status, IP_STATUS_OK, "get after put")
        if got.bytes != [1, 2, 3] { context.fail("get after put gave \(got.bytes.count) bytes, not the 3 stored") }
        expect(cache.put(store, prefix + "a", [9, 8, 7, 6]), IP_STATUS_OK, "overwriting put")
        if cache.get(store, prefix + "a").bytes != [9, 8, 7, 6] { context.fail("get after an overwrite does not give the new value") }
        expect(cache.put(store, prefix + "empty", []), IP_STATUS_OK, "put of an empty value")
        let empty = cache.get(store, prefix + "empty")
        if empty.status != IP_STATUS_OK || !empty.bytes.isEmpty { context.fail("an empty value reads back as \(StatusName.of(empty.status)) with \(empty.bytes.count) bytes") }
        let big = LoaderChecks.pattern(8 << 20)
        let bigPut = cache.put(store, prefix + "big", big)
        if bigPut == IP_STATUS_OK {
            if cache.get(store, prefix + "big").bytes != big { context.fail("an 8 MiB value reads back differently") }
        } else if bigPut != IP_STATUS_LIMIT_EXCEEDED {
            context.fail("put of an 8 MiB value returned \(StatusName.of(bigPut)) (OK or LIMIT_EXCEEDED)")
        }
        let longKey = prefix + String(repeating: "k", count: 4096 - prefix.utf8.count)
        let longPut = cache.put(store, longKey, [42])
        if longPut == IP_STATUS_OK {
            if cache.get(store, longKey).bytes != [42] { context.fail("a 4096-byte key does not read back") }
        } else {
            context.fail("put with a 4096-byte key (the documented maximum) returned \(StatusName.of(longPut))")
        }
        let odd = prefix + "ünïcødé/../key with spaces\t?*"
        expect(cache.put(store, odd, [5]), IP_STATUS_OK, "put with a key of unicode, slashes, dots and spaces")
        if cache.get(store, odd).bytes != [5] { context.fail("a key with unicode, slashes and spaces does not read back") }
        expect(cache.remove(store, prefix + "a"), IP_STATUS_OK, "remove")
        expect(cache.get(store, prefix + "a").status, IP_STATUS_NOT_FOUND, "get after remove")
        expect(cache.remove(store, prefix + "a"), IP_STATUS_OK, "remove of an absent key")
        if let cleared = cache.clear(store) {
            expect(cleared, IP_STATUS_OK, "clear")
            expect(cache.get(store, odd).status, IP_STATUS_NOT_FOUND, "get after clear")
        } else {
            for key in [prefix + "empty", prefix + "big", longKey, odd] { _ = cache.remove(store, key) }
        }
        if let stats = cache.table.table.stats {
            var value = ip_cache_stats()
            value.struct_size = UInt32(MemoryLayout<ip_cache_stats>.size)
            let status = Watchdog.guarding("cache stats", limit: context.settings.callLimit) { stats(store, &value) }
            if status != IP_STATUS_OK { context.warn("stats returned \(StatusName.of(status))") }
        }
        context.note("open, put, get, overwrite, remove, \(cache.table.table.clear == nil ? "" : "clear, ")big values and long keys behave")
    }

    static let concurrency = CheckDefinition(id: "cache.concurrency", title: "put/get/remove from 4 threads", scope: .cache, applies: { d, i in
        d.caches[i].capabilities & UInt64(IP_CACHE_THREAD_SAFE) != 0 ? nil : "the cache does not claim THREAD_SAFE"
    }) { context in
        let cache = try context.cache()
        let opened = cache.open(context.settings.cacheConfiguration)
        guard opened.status == IP_STATUS_OK else { context.fail("open(\(context.settings.cacheConfiguration ?? "NULL")) returned \(StatusName.of(opened.status))"); return }
        defer { cache.close(opened.store) }
        let store = UnsafeSendable(opened.store)
        let problems = Mutex<[String]>([])
        let rounds = 25 * context.strictness
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<rounds {
                let key = "imagepipe-concurrency-\(thread)-\(round % 7)"
                let value = (0..<(64 + round)).map { UInt8(($0 + thread) % 256) }
                if cache.put(store.value, key, value) != IP_STATUS_OK { problems.withLock { $0.append("put \(key) failed") } }
                let got = cache.get(store.value, key)
                if got.status != IP_STATUS_OK || got.bytes != value {
                    problems.withLock { $0.append("thread \(thread): get \(key) after its own put gave \(StatusName.of(got.status)) with \(got.bytes.count) bytes") }
                }
                _ = cache.get(store.value, "imagepipe-concurrency-\((thread + 1) % 4)-\(round % 7)")
                if round % 5 == 4 { _ = cache.remove(store.value, key) }
            }
        }
        for problem in problems.withLock({ $0 }).prefix(10) { context.fail(problem) }
        for thread in 0..<4 { for slot in 0..<7 { _ = cache.remove(opened.store, "imagepipe-concurrency-\(thread)-\(slot)") } }
        context.note("\(4 * rounds) rounds of put/get/remove on 4 threads")
    }
}

/// A value handed to concurrent workers that the plugin promises is thread-safe (IP_CACHE_THREAD_SAFE).
struct UnsafeSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
