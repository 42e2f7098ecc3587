import CairnModel
import SegmentLog

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
        view.update(changed, previous: previousVersions(changed.map(\.key), replaced, events: events))
    }

    /// Keeps the field indexes exact after documents left the cache: `removed[i]` is the view's entry `keys[i]`
    /// had (nil when it had none).
    func remove(_ keys: [DocumentKey], removed: [RemoteDocumentEntry?], events: any EventStore) {
        guard !view.indexes.isEmpty else { return }
        view.remove(keys, previous: previousVersions(keys, removed, events: events))
    }

    /// The previous version of each document as far as the indexes need it: `.none` when it did not exist or no
    /// index covers it, its indexed fields, or `.unreadable` when its event cannot be read or decoded or is not
    /// the version its entry names. The events are read in log order, each frame once, without filling the frame
    /// cache (evicted documents are cold).
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
        // Read in order, the events before the one whose frame failed were read: that frame is remembered (its
        // documents fall back to the scan) and the rest read again, so that no frame is read twice.
        var pending = wanted[...]
        var failedFrames: Set<FrameID> = []
        while !pending.isEmpty {
            var read = 0
            do {
                try events.forEachValue(of: pending.map { entries[$0]!.reference }, fillCache: false) { position, value in
                    let document = pending[pending.startIndex + position]
                    versions[document] = indexedVersion(keys[document], entries[document]!, value)
                    read = position + 1
                }
                break
            } catch {
                failedFrames.insert(FrameID(entries[pending[pending.startIndex + read]]!.reference))
                pending = pending.dropFirst(read).filter { document in
                    guard failedFrames.contains(FrameID(entries[document]!.reference)) else { return true }
                    versions[document] = .unreadable
                    return false
                }[...]
            }
        }
        return versions
    }

    /// The frame an event is in (a memory event is a frame of its own).
    private struct FrameID: Hashable {
        let reference: EventReference

        init(_ reference: EventReference) {
            if case .log(let location) = reference {
                self.reference = .log(RecordLocation(segment: location.segment, frameOffset: location.frameOffset, index: 0, size: 0))
            } else {
                self.reference = reference
            }
        }
    }

    /// The indexed fields of the document in an event's value: `.unreadable` when they cannot be decoded, or when
    /// the event is not the version `entry` (the view's entry for the document) says it is, as the entries to
    /// remove would then not be those in the index.
    private func indexedVersion(
        _ key: DocumentKey, _ entry: RemoteDocumentEntry, _ value: UnsafeRawBufferPointer
    ) -> FieldIndexView.PreviousVersion {
        guard let header = try? RemoteDocumentHeader.decode(value), header.state == entry.state, header.version == entry.version
        else { return .unreadable }
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
