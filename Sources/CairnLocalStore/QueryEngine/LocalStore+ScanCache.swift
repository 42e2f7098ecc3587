/// The scans' cache of decoded field values (QueryEngine/FieldValueCache.swift): how much memory it may take.
extension LocalStore {
    /// The most memory, in bytes (estimated), that scans keep in decoded field values: for each collection
    /// and each field a scan filtered or ranked on, one value per document. A repeated scan that finds its
    /// fields here reads and decodes only the documents that can be in its answer. The default,
    /// 32 MiB, holds about 500,000 short values; 0 turns the cache off. Lowering it evicts at once.
    ///
    /// ```swift
    /// store.scanCacheCapacity = 8 << 20   // a phone app with little memory to spare
    /// ```
    package var scanCacheCapacity: Int {
        get { queryEngine.fieldValueCache.capacity }
        set { queryEngine.fieldValueCache.capacity = max(0, newValue) }
    }

    /// The memory, in bytes (estimated), that the scans' cache of field values holds now.
    package var scanCacheBytes: Int { queryEngine.fieldValueCache.bytes }
}

extension LocalStore {
    /// The memory, in bytes, that the log's frame cache of decompressed frames holds now (bounded by
    /// `SegmentLog.Configuration.frameCacheBytes`); 0 in memory mode.
    package var cachedFrameBytes: Int { events.log?.statistics.cachedFrameBytes ?? 0 }
}
