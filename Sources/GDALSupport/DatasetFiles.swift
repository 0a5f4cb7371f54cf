import CGDAL
import MeridianCore
import MeridianFormats

/// What GDAL reads for a dataset from elsewhere stays in the dataset's folder, for rasters and
/// vector data alike: nothing outside it is read, and nothing is fetched (GDAL's network is
/// off: `GDAL.keepOffTheNetwork`).
///
/// Three checks, for each moment GDAL reads another file:
/// - before GDAL opens anything, what it could open in the input's folder: the input and every
///   file beside it that shares its name (a shapefile's `.dbf`, `.shx`, `.prj`; a raster's
///   `.aux.xml`, `.tfw`, `.ovr`), or every entry of an input that is a folder, must be a regular
///   file or a folder (``checkRegularFiles(opening:name:)``): a named pipe, device or socket
///   there would hold GDAL's open for ever;
/// - before GDAL opens the input, the files a driver reads while opening because the input's
///   own files name them: a VRT's sources (``VRTSources``), a GML file's XML schema (the
///   `.xsd` beside it, which GDAL's GML driver reads with every `include` it names, any path:
///   ``checkSchemaIncludes(ofGML:name:)``), and any named pipe, device or socket a label or
///   header names under a name of its own (a PDS label's `^IMAGE`), found by its name among
///   the words of the input and its companions (``checkRegularFiles(opening:name:)``);
/// - once it is open, every file GDAL's own list for the dataset names (GDALGetFileList: a
///   label's data file, a shapefile's companions, a CSV's `.csvt`, a GML's `.gfs` and `.xsd`):
///   ``checkStayInFolder(_:openPath:name:hint:)``.
public enum DatasetFiles {
    /// How deep schemas may include schemas.
    public static let maximumSchemaDepth = 8
    /// The largest schema read.
    public static let maximumSchemaBytes = 16 << 20

    /// Refuses a dataset whose reading would take a file outside the folder of `openPath`
    /// (after links are resolved). Files GDAL lists that are not there are passed over (a
    /// sidecar it looked for); inside an archive or GDAL's memory (`/vsi…`) nothing is checked.
    /// - Parameters:
    ///   - name: The input as errors name it.
    ///   - hint: What to do, worded for the kind of data.
    /// - Throws: `MeridianError` (bad input) naming the input and the outside file.
    public static func checkStayInFolder(_ dataset: GDALDataset, openPath: String, name: String,
                                         hint: String = "keep a dataset's files in its folder") throws {
        guard !openPath.hasPrefix("/vsi"), let input = resolved(openPath) else { return }
        let folder = folderOf(input)
        for file in dataset.files where !file.hasPrefix("/vsi") {
            guard let real = resolved(file) else { continue }
            guard isInside(real, folder: folder) else {
                throw MeridianError(.badInput, "GDAL would read \"\(file)\" for this dataset, outside its folder",
                                    at: SourceLocation(file: name), hint: hint)
            }
        }
    }

    /// Refuses, before GDAL opens `path`, a dataset of which GDAL could open something that is
    /// not a regular file: the input itself (through a link the user named), each entry of its
    /// folder whose name is the input's without its extension, or that followed by a dot and
    /// more (any case: `roads.dbf`, `roads.DBF`, `chart.tif.aux.xml`), or, for an input that is a
    /// folder, each entry in it. Such an entry must be a regular file or a folder as lstat(2)
    /// sees it; a symbolic link is looked at as a link first, and what it points to must be a
    /// regular file or a folder too (where it may point is ``checkStayInFolder(_:openPath:name:hint:)``'s).
    /// A named pipe, a device or a socket there would hold GDAL's open (or read) for ever.
    /// Inside an archive or GDAL's memory (`/vsi…`) nothing is checked; nothing there passes.
    /// - Throws: `MeridianError` (bad input) naming the entry and what it is.
    public static func checkRegularFiles(opening path: String, name: String) throws {
        guard !path.hasPrefix("/vsi") else { return }
        var info = stat()
        guard stat(path, &info) == 0 else { return }  // not there: the reader says so
        func refused(_ entry: String, _ what: String) -> MeridianError {
            MeridianError(.badInput, "\"\(entry)\" is \(what), not a regular file: GDAL could wait on it for ever",
                          at: SourceLocation(file: name), hint: "keep only regular files beside a dataset under its name")
        }
        let entries: [(path: String, shown: String)]
        // The input's folder as listed once (nil: the input is a folder).
        var listing: [(name: String, kind: LinkFreeReading.Kind)]?
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            let folder = folderOf(path), fileName = String(path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...])
            let stem = withoutExtension(fileName).lowercased()
            listing = LinkFreeReading.entries(of: folder)
            entries = (listing ?? []).compactMap { entry in
                let lower = entry.name.lowercased()
                guard entry.name != fileName, lower == stem || lower.hasPrefix(stem + ".") else { return nil }
                return (folder + "/" + entry.name, folder == "." ? entry.name : folder + "/" + entry.name)
            }
        case S_IFDIR:
            entries = LinkFreeReading.entries(of: path).map { (path + "/" + $0.name, (name.hasSuffix("/") ? name : name + "/") + $0.name) }
        default:
            throw refused(name, kind(info))
        }
        for entry in entries {
            if let what = notRegular(entry.path) { throw refused(entry.shown, what) }
        }
        // The input and its companions name other files (a PDS label's ^IMAGE, an ENVI header's
        // or an .aux.xml's file names): those GDAL opens by the name stated, under any name.
        if let listing {
            try checkNamedFiles(in: [(path, name)] + entries.map { ($0.path, $0.shown) }, folder: folderOf(path), listing: listing)
        }
    }

    /// What the entry at `path` is when it is neither a regular file nor a folder, as lstat(2)
    /// sees it and, for a symbolic link, as what it points to ("a symbolic link to a named
    /// pipe"); nil for a regular file, a folder, a link to one, a dangling link or nothing.
    private static func notRegular(_ path: String) -> String? {
        var found = stat()
        guard lstat(path, &found) == 0 else { return nil }
        switch found.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil
        case S_IFLNK:
            var target = stat()
            guard stat(path, &target) == 0 else { return nil }  // a dangling link: nothing to open
            return [S_IFREG, S_IFDIR].contains(target.st_mode & S_IFMT) ? nil : "a symbolic link to " + kind(target)
        default:
            return kind(found)
        }
    }

    /// How much of the input is read for the names it states (an attached label comes first,
    /// as a raster's header does), and of each companion (a detached label, a header, an .aux.xml).
    public static let namedFilesScanBytes = (input: 64 << 10, companion: 1 << 20)

    /// Refuses, before GDAL opens the dataset, a named pipe, device or socket (or a link to one)
    /// that one of `files` (the input, then its companions) names, as a word of its first
    /// ``namedFilesScanBytes``: a name of an entry of `folder` (compared without case, as
    /// GDAL tries `X.IMG` and `x.img`), or a path with a slash (from `folder`, or absolute).
    /// A PDS label's `^IMAGE = "x.img"` made GDAL wait for ever on a named pipe `x.img`, which
    /// shares no name with the label. Regular files a name reaches outside the folder are
    /// ``checkStayInFolder(_:openPath:name:hint:)``'s, once GDAL lists them.
    /// - Throws: `MeridianError` (bad input) naming the file, line and column of the name.
    static func checkNamedFiles(in files: [(path: String, shown: String)], folder: String,
                                listing: [(name: String, kind: LinkFreeReading.Kind)]) throws {
        // The folder's entries GDAL could wait on, by their names in lower case.
        var hazards: [String: String] = [:]
        for entry in listing where entry.kind != .file && entry.kind != .folder {
            if let what = notRegular(folder + "/" + entry.name) { hazards[entry.name.lowercased()] = what }
        }
        var pathsLookedAt = 0
        for (index, file) in files.enumerated() {
            let scanned = index == 0 ? namedFilesScanBytes.input : namedFilesScanBytes.companion
            guard let bytes = leadingBytes(ofRegularFile: file.path, count: scanned) else { continue }
            var start = 0
            func word(_ range: Range<Int>) throws {
                guard !range.isEmpty, range.count <= 4096 else { return }
                // Most words are neither paths nor names of a hazard: no text is made of them.
                let isPath = bytes[range].contains(UInt8(ascii: "/"))
                guard isPath || !hazards.isEmpty else { return }
                let text = String(decoding: bytes[range], as: UTF8.self)
                var what = hazards[text.lowercased()]
                if what == nil, isPath, pathsLookedAt < 10_000 {
                    pathsLookedAt += 1
                    what = notRegular(text.hasPrefix("/") ? text : folder + "/" + text)
                }
                guard let what else { return }
                let before = bytes[..<range.lowerBound]
                let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
                let column = range.lowerBound - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
                throw MeridianError(.badInput, "it names \"\(text.prefix(200))\", which is \(what), not a regular file: GDAL could wait on it for ever",
                                    at: SourceLocation(file: file.shown, line: line, column: column),
                                    hint: "name only regular files in a dataset's labels and headers")
            }
            for (index, byte) in bytes.enumerated() where !isNameByte(byte) {
                try word(start..<index)
                start = index + 1
            }
            try word(start..<bytes.count)
        }
    }

    /// Whether `byte` may be part of a file name as labels and headers write them: letters,
    /// digits, `.`, `_`, `-`, `/`, `~`, `+`, and any byte of a UTF-8 sequence.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: "~"), UInt8(ascii: "+"), 0x80...0xFF:
            true
        default:
            false
        }
    }

    /// Up to `count` first bytes of the regular file at `path`, opened without following a link
    /// and without waiting (a named pipe put there since it was looked at is not read); nil
    /// when it is no regular file, cannot be read, or (`whole`) is longer than `count`.
    private static func leadingBytes(ofRegularFile path: String, count: Int, whole: Bool = false) -> [UInt8]? {
        let fd = Platform.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let fileSize = Int(exactly: info.st_size),
              !whole || fileSize <= count else { return nil }
        let size = min(count, fileSize)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, size - done) }
            guard got > 0 else { break }
            done += got
        }
        return Array(bytes[..<done])
    }

    /// Checks, before GDAL opens `path` as GML, the XML schema GDAL's GML driver would read for
    /// it (the file of the same name ending in `.xsd`) and every schema that one names by
    /// `include` or `import`: each local one must be inside the GML file's folder, reached
    /// through no symbolic link, and a regular file (a named pipe there would hold GDAL for
    /// ever); a URL is left alone (never fetched). Any other file passes untouched.
    /// - Throws: `MeridianError` (bad input) naming the schema that names the outside file, with
    ///   the line of the name.
    public static func checkSchemaIncludes(ofGML path: String, name: String) throws {
        guard !path.hasPrefix("/vsi"), let gml = resolved(path) else { return }
        let folder = folderOf(gml)
        let beside = withoutExtension(path) + ".xsd"
        var info = stat()
        guard lstat(beside, &info) == 0 else { return }
        let shownBeside = withoutExtension(name) + ".xsd"
        var visited: Set<String> = []
        try checkSchema(beside, shown: shownBeside, folder: folder, depth: 0, visited: &visited)
    }

    private static func checkSchema(_ path: String, shown: String, folder: String, depth: Int, visited: inout Set<String>) throws {
        func refused(_ why: String, at location: SourceLocation? = nil) -> MeridianError {
            MeridianError(.badInput, why, at: location ?? SourceLocation(file: shown),
                          hint: "keep a GML file's schemas in its folder, named by relative paths")
        }
        // The schema itself: a regular file in the folder, reached through no link.
        var info = stat()
        guard lstat(path, &info) == 0 else { return }  // GDAL finds nothing there either
        guard info.st_mode & S_IFMT == S_IFREG else { throw refused("the schema is not a regular file (\(kind(info)))") }
        guard let real = resolved(path), isInside(real, folder: folder) else { throw refused("the schema lies outside the GML file's folder") }
        guard visited.insert(real).inserted else { return }
        guard depth < maximumSchemaDepth else { throw refused("schemas include schemas more than \(maximumSchemaDepth) deep") }
        guard info.st_size <= maximumSchemaBytes, let text = contents(ofRegularFile: path) else {
            throw refused("the schema is larger than \(maximumSchemaBytes >> 20) MiB, or cannot be read")
        }
        guard let root = text.withCString({ CPLParseXMLString($0) }) else { return }  // GDAL cannot read it either
        defer { CPLDestroyXMLNode(root) }
        // From the document's top nodes on: an `<?xml?>` declaration, comments, then the schema.
        let locations = schemaLocations(from: root)
        let schemaFolder = folderOf(path)
        for location in locations {
            let lower = location.lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") { continue }  // never fetched
            let line = lineOf(location, in: text)
            let at = SourceLocation(file: shown, line: line)
            guard !GDAL.namesVirtualFileSystem(location), !location.contains(":") else {
                throw refused("the schema names \"\(location.prefix(200))\", which is not a file beside it", at: at)
            }
            let components = location.split(separator: "/", omittingEmptySubsequences: true)
            guard !location.hasPrefix("/"), !location.contains("\\"), !components.contains("..") else {
                throw refused("the schema names \"\(location.prefix(200))\", outside the GML file's folder", at: at)
            }
            var target = schemaFolder
            for component in components where component != "." {
                target += "/" + component
                var step = stat()
                guard lstat(target, &step) == 0 else { break }  // not there: GDAL reads nothing
                guard step.st_mode & S_IFMT != S_IFLNK else {
                    throw refused("the schema names \"\(location.prefix(200))\" through a symbolic link, which Meridian does not follow", at: at)
                }
            }
            let shownFolder = shown.contains("/") ? folderOf(shown) : ""
            try checkSchema(target, shown: shownFolder.isEmpty ? location : shownFolder + "/" + location, folder: folder,
                            depth: depth + 1, visited: &visited)
        }
    }

    /// The `schemaLocation` of every `include`, `import`, `redefine` or `override` element
    /// (any prefix) from `root` and its siblings down, in document order, with a stack of its
    /// own (a crafted schema nests deeply).
    private static func schemaLocations(from root: UnsafeMutablePointer<CPLXMLNode>) -> [String] {
        var locations: [String] = []
        var stack: [UnsafeMutablePointer<CPLXMLNode>] = [root]
        while let node = stack.popLast() {
            if let next = node.pointee.psNext { stack.append(next) }
            guard node.pointee.eType == CXT_Element, let value = node.pointee.pszValue else { continue }
            if let child = node.pointee.psChild { stack.append(child) }
            let element = String(cString: value).split(separator: ":").last.map { $0.lowercased() } ?? ""
            guard ["include", "import", "redefine", "override"].contains(element) else { continue }
            var attribute = node.pointee.psChild
            while let current = attribute {
                if current.pointee.eType == CXT_Attribute, let key = current.pointee.pszValue,
                   String(cString: key).lowercased() == "schemalocation", let text = current.pointee.psChild?.pointee.pszValue {
                    locations.append(String(String(cString: text).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).first ?? ""))
                }
                attribute = current.pointee.psNext
            }
        }
        return locations
    }

    /// The folder part of `path` ("/" for a file at the root, "." for a bare name).
    static func folderOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` without its last extension (`a/b.gml` → `a/b`), as GDAL's CPLResetExtension takes it off.
    static func withoutExtension(_ path: String) -> String {
        let nameStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[nameStart...].lastIndex(of: "."), dot > nameStart else { return path }
        return String(path[..<dot])
    }

    /// The text of the regular file at `path`, opened without following a link and without
    /// waiting (a named pipe put there since it was looked at is not read); nil when it cannot be read or is longer than ``maximumSchemaBytes``.
    static func contents(ofRegularFile path: String) -> String? {
        leadingBytes(ofRegularFile: path, count: maximumSchemaBytes, whole: true).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The line (from 1) of the first occurrence of `location` in `text`, or nil.
    private static func lineOf(_ location: String, in text: String) -> Int? {
        let needle = Array(location.utf8), bytes = Array(text.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        var line = 1
        for start in 0...(bytes.count - needle.count) {
            if bytes[start] == UInt8(ascii: "\n") { line += 1 }
            if bytes[start..<start + needle.count].elementsEqual(needle) { return line }
        }
        return nil
    }

    private static func kind(_ info: stat) -> String {
        switch info.st_mode & S_IFMT {
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a named pipe"
        case S_IFDIR: "a folder"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "neither a file nor a folder"
        }
    }

    /// Whether the resolved path `real` is inside the resolved `folder`.
    static func isInside(_ real: String, folder: String) -> Bool {
        real.hasPrefix(folder == "/" ? "/" : folder + "/")
    }

    /// `path` absolute with every link resolved (realpath(3)), or nil when it is not there.
    static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}
