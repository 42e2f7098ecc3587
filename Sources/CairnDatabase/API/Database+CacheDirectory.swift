import Foundation

extension Database {
    /// Where a database keeps its persistent cache: `$XDG_DATA_HOME/cairn/_database/<host>/<namespace>` for the
    /// default app and `…/cairn/@<app>/_database/<host>/<namespace>` for any other, with `~/.local/share` when
    /// `XDG_DATA_HOME` is unset or relative. Beside the Firestore caches (`cairn/<project>/<database>`), and never
    /// one of them: a project ID cannot begin with `_` or `@`. Each part is percent-encoded except letters,
    /// digits, `-`, `_` and `.` (and a part that is only dots is encoded whole), so no name climbs out of
    /// `cairn/`. Firebase keys its directory by host and namespace the same way (`<host>_<namespace>`).
    package static func defaultCacheDirectory(appName: String, host: String, namespace: String, environment: [String: String]) -> String {
        var base: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        }
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var directory = base + "/cairn"
        if appName != FirebaseApp.defaultAppName { directory += "/@" + escaped(appName) }
        return directory + "/_database/" + escaped(host) + "/" + escaped(namespace)
    }

    private static func escaped(_ part: String) -> String {
        var allowed = CharacterSet(charactersIn: "-_.")
        allowed.formUnion(CharacterSet(charactersIn: "a"..."z"))
        allowed.formUnion(CharacterSet(charactersIn: "A"..."Z"))
        allowed.formUnion(CharacterSet(charactersIn: "0"..."9"))
        if part.allSatisfy({ $0 == "." }) { return part.replacingOccurrences(of: ".", with: "%2E") }
        return part.addingPercentEncoding(withAllowedCharacters: allowed) ?? "_"
    }
}
