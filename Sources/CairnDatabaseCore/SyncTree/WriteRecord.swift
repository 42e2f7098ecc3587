/// One pending user write: an overwrite (`snap`) or a merge (`children`, relative paths and nodes), with its id and
/// whether it raises local events (`visible`; a transaction's hidden set does not).
package struct WriteRecord {
    package let writeId: Int
    package let path: DatabasePath
    package let snap: Node?
    package let children: [(DatabasePath, Node)]?
    package let visible: Bool

    /// True when this write is at, above or below `target`.
    func touches(_ target: DatabasePath) -> Bool {
        path.contains(target) || target.contains(path)
    }

    /// True when this write sets `target` or an ancestor of it.
    func covers(_ target: DatabasePath) -> Bool {
        if snap != nil { return path.contains(target) }
        return (children ?? []).contains { path.child($0.0).contains(target) }
    }
}
