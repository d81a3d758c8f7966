import Foundation
import PipescopeModel

/// `pipescope attach --dump-on stalled,owner-leak,cancel`: dumps the program's flight
/// recorder (``DumpCommand``) when a warning of one of those kinds first shows (the
/// same mistake in the same place counts once, as the warnings list groups them:
/// ``LintGroup``), or when the user cancels a stage from the inspector, to a file named for the time in
/// `--dump-dir` (default: the current directory); the status line says where.
///
/// At most one dump every ``minimumInterval`` seconds: a trigger within it is kept and
/// dumped once the interval is over (a hundred leaks at once make one dump, not a
/// hundred). Dumps are written on a thread of their own, so the inspector never waits.
final class DumpTrigger: @unchecked Sendable {
    /// What may trigger a dump: a lint kind, or `cancel`.
    static let cancel = "cancel"
    static var choices: [String] { LintRules.all.map { $0.kind.rawValue } + [cancel] }
    static let minimumInterval: TimeInterval = 10

    private let kinds: Set<LintKind>
    private let onCancel: Bool
    /// The program's flight recorder directory.
    private let directory: String
    private let dumpDirectory: String

    private let lock = NSLock()
    /// The warnings seen so far: the same mistake in the same place.
    private var seen: Set<LintGroup.Key> = []
    private var notices: [Message] = []
    private var lastDump: Date?
    private var pending: String?
    private var dumping = false

    /// `triggers`: lint names and `cancel` (checked by ``parse(_:)``).
    init(triggers: [String], directory: String, dumpDirectory: String) {
        kinds = Set(triggers.compactMap { LintRules.named($0)?.kind })
        onCancel = triggers.contains(Self.cancel)
        self.directory = directory
        self.dumpDirectory = dumpDirectory
    }

    /// `stalled,owner-leak` as names, or nil with what is wrong.
    static func parse(_ text: String) -> (names: [String], problem: String?) {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if names.isEmpty { return ([], "--dump-on needs at least one of \(choices.joined(separator: ", "))") }
        for name in names where !choices.contains(name) {
            return ([], "--dump-on: unknown trigger '\(name)'; choose from \(choices.joined(separator: ", "))")
        }
        return (names, nil)
    }

    /// The warnings as of the inspector's last tick: one seen for the first time, of a
    /// kind asked for, triggers a dump.
    func warnings(_ groups: [LintGroup]) {
        lock.lock()
        var reason: String?
        for group in groups where kinds.contains(group.kind) && seen.insert(group.key).inserted {
            reason = reason ?? "\(group.kind.rawValue) on #\(group.newest.node)"
        }
        lock.unlock()
        trigger(reason)
    }

    /// An effect the inspector performs: a cancel triggers a dump with `cancel`.
    func performed(_ effect: Effect) {
        guard onCancel, case .cancelNode(let node) = effect else { return }
        trigger("you cancelled #\(node)")
    }

    /// What to show in the status line since the last call.
    func take() -> [Message] {
        lock.lock()
        defer { notices = []; lock.unlock() }
        return notices
    }

    private func trigger(_ reason: String?) {
        lock.lock()
        if let reason { pending = pending ?? reason }
        guard let why = pending, !dumping,
              lastDump.map({ Date().timeIntervalSince($0) >= Self.minimumInterval }) ?? true else {
            lock.unlock()
            return
        }
        pending = nil
        dumping = true
        lastDump = Date()
        lock.unlock()
        let file = dumpDirectory + "/" + Self.fileName(Date())
        let directory = self.directory
        Thread.detachNewThread { [self] in
            let notice: Message
            do {
                _ = try DumpCommand.dump(target: directory, to: file)
                notice = .acknowledged(ok: true, text: "\(why): dumped the flight recorder to \(file)")
            } catch {
                notice = .acknowledged(ok: false, text: "\(why): no dump: \(error)")
            }
            lock.lock()
            notices.append(notice)
            dumping = false
            lock.unlock()
        }
    }

    /// `pipescope-dump-20261126-170700.123.pipescope`, in local time.
    static func fileName(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss.SSS"
        return "pipescope-dump-\(formatter.string(from: date)).pipescope"
    }
}
