/// Crashes a scripted workload at each of its I/O operations in turn, and reopens what a power loss would leave.
///
/// For crash point `n` in `1...operations`, the workload runs on a fresh ``SimulatedFileSystem`` that crashes at
/// its `n`th operation; then each crash image (unsynced data dropped, kept, or a torn prefix) is reopened and
/// described. Every step that returned must be there, and the interrupted one whole or absent. The sweep only
/// collects what it finds (this module is linked by tools, not just tests): the caller checks the ``Report``.
public enum CrashSweep {
    /// One step of a workload: a name for messages, and what it does to the open store.
    public typealias Step<Store> = (name: String, run: (Store) throws -> Void)

    /// What the sweep found.
    public struct Report: Sendable {
        /// Each crash image whose state is neither the finished steps nor those plus the interrupted one, and
        /// each workload error that was not the crash, as a message naming the crash point and step.
        public var problems: [String] = []
        /// `"absent"` where a crash image lost the interrupted step, `"whole"` where it kept all of it.
        public var outcomes: Set<String> = []
        /// How many steps had returned at each crash point. `steps.count` is there when a crash point fell in
        /// background work still running after the last step returned (a compaction's directory sync on the
        /// log's publisher queue), which a run may or may not reach before its steps end.
        public var interrupted: Set<Int> = []
    }

    /// The crash models each crash point is reopened under: the usual one (unsynced data lost) and two harsher
    /// ones (unsynced data kept, or a torn prefix of it).
    public static let models: [CrashModel] = [.dropUnsyncedData, .keepUnsyncedData, .randomPrefix]

    /// Runs the sweep. `expected[k]` is the state after the first `k` steps (so it has `steps.count + 1`
    /// entries); `operations` is the number of I/O operations of a whole clean run. `open` opens the store on a
    /// file system, `describe` states what it holds, and `afterRecovery` gets each reopened store to check it
    /// keeps working and to close it.
    public static func run<Store, State: Equatable>(
        steps: [Step<Store>],
        expected: [State],
        operations: Int,
        open: (SimulatedFileSystem) throws -> Store,
        describe: (Store) throws -> State,
        afterRecovery: (Store) throws -> Void,
        isDurable: (Int) -> Bool = { _ in true }
    ) throws -> Report {
        var report = Report()
        for crashPoint in 1...operations {
            let fs = SimulatedFileSystem(seed: UInt64(crashPoint))
            fs.crashAtOperation = crashPoint
            var completed = 0
            do {
                let store = try open(fs)
                for step in steps {
                    try step.run(store)
                    completed += 1
                }
            } catch {
                if !fs.isCrashed { report.problems.append("only the crash may fail the workload: \(error)") }
            }
            report.interrupted.insert(completed)
            for crashModel in models {
                let recovered = try open(fs.crashImage(crashModel, seed: UInt64(crashPoint)))
                let state = try describe(recovered)
                // Every durable step that returned is there, and what survives is a prefix of the steps: the
                // deferred steps after the last durable one may be lost (a power loss); the interrupted one is all
                // there or not at all.
                let step = completed < steps.count ? steps[completed].name : "nothing"
                let whole = completed < steps.count && state == expected[completed + 1]
                let durablePrefix = (0..<completed).last(where: isDurable).map { $0 + 1 } ?? 0
                let prefix = (durablePrefix...completed).first { state == expected[$0] }
                if prefix == completed {
                    report.outcomes.insert("absent")
                } else if prefix != nil {
                    report.outcomes.insert("deferred lost")
                } else if whole {
                    report.outcomes.insert("whole")
                } else {
                    report.problems.append("crash at operation \(crashPoint) (\(crashModel)) during \(step)")
                }
                try afterRecovery(recovered)
            }
        }
        return report
    }
}
