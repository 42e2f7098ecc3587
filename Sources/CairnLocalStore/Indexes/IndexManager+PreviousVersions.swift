import CairnModel

/// How the field indexes find a changed or removed document's old entries: they are not kept per document, so
/// they are recomputed from the document's previous version, read back from its event (the view's entry that
/// the change replaces, read before that event is retired). Only documents of a collection group with indexes
/// pay that read, and only the indexed fields are decoded. Compaction only moves events (the view follows
/// them), replay rebuilds the entries by backfill, and a backfill inserts the current state's entries (a change
/// racing it already replaced the old ones), so none of them needs the old entries.
///
/// ```swift
/// // in the commit of remote documents, before the replaced events are retired:
/// indexManager.update(documents, replaced: replacedEntries, events: events)
/// ```
extension IndexManager {
    /// Keeps the field indexes exact after remote documents changed (new versions, tombstones): `replaced[i]`
    /// is the view's entry `changed[i]` replaced (nil when the document is new to the cache).
    func update(_ changed: [Document], replaced: [RemoteDocumentEntry?], events: any EventStore) {
        guard !view.indexes.isEmpty else { return }
        let previous = previousVersions(changed.map(\.key), replaced, events: events)
        for (document, previous) in zip(changed, previous) { view.update(document, previous: previous) }
    }

    /// Keeps the field indexes exact after documents left the cache: `removed[i]` is the view's entry `keys[i]`
    /// had (nil when it had none).
    func remove(_ keys: [DocumentKey], removed: [RemoteDocumentEntry?], events: any EventStore) {
        guard !view.indexes.isEmpty else { return }
        let previous = previousVersions(keys, removed, events: events)
        for (key, previous) in zip(keys, previous) { view.remove(key, previous: previous) }
    }

    /// The previous version of each document as far as the indexes need it: `.none` when it did not exist or no
    /// index covers it, its indexed fields, or `.unreadable` when its event cannot be read or decoded. The events
    /// are read in log order, each frame once, without filling the frame cache (evicted documents are cold).
    private func previousVersions(
        _ keys: [DocumentKey], _ entries: [RemoteDocumentEntry?], events: any EventStore
    ) -> [FieldIndexView.PreviousVersion] {
        var versions = [FieldIndexView.PreviousVersion](repeating: .none, count: keys.count)
        var wanted: [Int] = []
        for (position, entry) in entries.enumerated() where entry?.state == .found && view.covers(keys[position]) {
            wanted.append(position)
        }
        guard !wanted.isEmpty else { return versions }
        wanted.sort { entries[$0]!.reference < entries[$1]!.reference }
        var read = [Bool](repeating: false, count: wanted.count)
        do {
            try events.forEachValue(of: wanted.map { entries[$0]!.reference }, fillCache: false) { position, value in
                versions[wanted[position]] = indexedVersion(keys[wanted[position]], value)
                read[position] = true
            }
        } catch {
            // A frame could not be read: read the rest one by one, so that only the damaged ones fall back.
            for (position, document) in wanted.enumerated() where !read[position] {
                let reference = entries[document]!.reference
                versions[document] = (try? events.withValue(of: reference) { indexedVersion(keys[document], $0) }) ?? .unreadable
            }
        }
        return versions
    }

    /// The indexed fields of the document in an event's value (`.unreadable` when they cannot be decoded).
    private func indexedVersion(_ key: DocumentKey, _ value: UnsafeRawBufferPointer) -> FieldIndexView.PreviousVersion {
        guard let header = try? RemoteDocumentHeader.decode(value) else { return .unreadable }
        guard header.state == .found else { return .none }
        let body = UnsafeRawBufferPointer(rebasing: value[RemoteDocumentHeader.size...])
        var data = ObjectValue()
        for field in view.indexedFields(of: key) {
            do {
                if let value = try DocumentCodec.value(at: field, in: body) { data.set(value, at: field) }
            } catch {
                return .unreadable
            }
        }
        return .document(Document(key: key, state: .found, version: header.version, data: data))
    }
}
