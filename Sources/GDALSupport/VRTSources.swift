import CGDAL
import MeridianCore

/// The files a GDAL VRT names, checked before GDAL opens it: a VRT from elsewhere (an input, a
/// GroundOverlay's image, a VRT one of those names) reaches nothing outside its own folder.
///
/// A VRT is a recipe naming other datasets (a band's `SourceFilename`, a warped VRT's
/// `SourceDataset`, an OGR VRT's `SrcDataSource`), and GDAL opens whatever they name: a file
/// anywhere (`/etc/passwd` as raw pixels, through `..` or an absolute path), a virtual file
/// system, or a driver's connection string (`PG:host=…` connects to a server, and
/// `MEM:::DATAPOINTER=…` reads memory at an address the file chooses: a crash). So each name must
/// be a plain relative path (`relativeToVRT="1"`), with no `..`, no `:` and no virtual file
/// system, of a regular file reached through no symbolic link; a VRT it names is checked the
/// same way, at most ``maximumDepth`` deep. A pixel function in Python (code in the file) is
/// refused too, whatever `GDAL_VRT_ENABLE_PYTHON` says. The names are read with GDAL's own XML parser, so
/// they are the ones GDAL would open.
public enum VRTSources {
    /// The largest VRT read (a catalog of ten thousand charts takes about 10 MiB).
    public static let maximumBytes = 64 << 20
    /// How deep VRTs may name VRTs.
    public static let maximumDepth = 8

    /// The elements whose text names a dataset (compared without case, as GDAL does).
    static let namingElements: Set<String> = ["sourcefilename", "sourcedataset", "srcdatasource"]

    /// Checks the file GDAL would open at `path` when it is a VRT (raster or OGR); any other
    /// file passes untouched.
    /// - Parameters:
    ///   - path: What GDAL opens (a path, or a `/vsizip/` or `/vsimem/` path Meridian made).
    ///   - name: The file as errors name it (what the user typed).
    /// - Throws: `MeridianError` (bad input) naming the VRT, and the line and column of the
    ///   name, when a name reaches outside the VRT's folder, the VRT is larger than
    ///   ``maximumBytes`` or VRTs nest deeper than ``maximumDepth``.
    public static func check(_ path: String, name: String) throws {
        GDAL.setUp()
        var visited: Set<String> = []
        try check(path, name: name, depth: 0, visited: &visited)
    }

    private static func check(_ path: String, name: String, depth: Int, visited: inout Set<String>) throws {
        guard visited.insert(path).inserted, let bytes = try recipe(at: path, name: name) else { return }
        guard depth < maximumDepth else {
            throw MeridianError(.badInput, "VRTs name VRTs more than \(maximumDepth) deep", at: SourceLocation(file: name))
        }
        var folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if folder.isEmpty && path.hasPrefix("/") { folder = "/" }  // a VRT at the root
        let shownFolder = name.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var cursor = Cursor(bytes)
        for source in sources(in: bytes) {
            let location = cursor.locate(source.text, file: name)
            func refused(_ why: String) -> MeridianError {
                MeridianError(.badInput, "the VRT's source \"\(source.text.prefix(200))\" \(why)", at: location,
                              hint: "a VRT may name only files beside it or in its subfolders, by relative paths (relativeToVRT=\"1\"): gdalbuildvrt writes them so when the VRT is made beside its sources")
            }
            if source.isPixelFunctionLanguage {
                guard source.text.lowercased() != "python" else {
                    throw MeridianError(.badInput, "the VRT's pixel function is Python code, which Meridian does not run", at: location)
                }
                continue
            }
            guard !GDAL.namesVirtualFileSystem(source.text) else {
                throw refused("names a GDAL virtual file system; Meridian reads only files")
            }
            guard !source.text.isEmpty, !source.text.contains(":"), !source.text.contains("<") else {
                throw refused("is not a file's name (GDAL would read it as a driver's dataset or connection)")
            }
            let components = source.text.split(separator: "/", omittingEmptySubsequences: true)
            guard !source.text.hasPrefix("/"), !source.text.contains("\\"), !components.contains("..") else {
                throw refused("lies outside the VRT's folder")
            }
            guard source.relativeToVRT else { throw refused("is relative to the current folder, not to the VRT's (relativeToVRT is not \"1\")") }
            var target = folder
            for component in components where component != "." {
                target = target.isEmpty ? String(component) : target + "/" + component
                if target.hasPrefix("/vsi") { continue }  // inside an archive or GDAL's memory: no links
                var info = stat()
                guard lstat(target, &info) == 0 else { throw refused("is not in the VRT's folder") }
                guard (info.st_mode & S_IFMT) != S_IFLNK else {
                    throw refused("is reached through a symbolic link (\(component)), which Meridian does not follow")
                }
                if component == components.last, (info.st_mode & S_IFMT) != S_IFREG { throw refused("is not a file") }
            }
            if target.hasPrefix("/vsi") {
                guard let file = VSIFOpenL(target, "rb") else { throw refused("is not in the VRT's folder") }
                VSIFCloseL(file)
            }
            let shown = components.filter { $0 != "." }.joined(separator: "/")
            try check(target, name: shownFolder.isEmpty ? shown : shownFolder + "/" + shown, depth: depth + 1, visited: &visited)
        }
    }

    /// The bytes of the file at `path` when it is a VRT (GDAL's test: its first 1,024 bytes hold
    /// `<VRTDataset` or `<OGRVRTDataSource`); nil for any other file, or one GDAL cannot open.
    static func recipe(at path: String, name: String) throws -> [UInt8]? {
        guard let file = VSIFOpenL(path, "rb") else { return nil }
        defer { VSIFCloseL(file) }
        var head = [UInt8](repeating: 0, count: 1024)
        head.removeLast(head.count - head.withUnsafeMutableBytes { VSIFReadL($0.baseAddress, 1, $0.count, file) })
        guard contains(head, "<VRTDataset") || contains(head, "<OGRVRTDataSource") else { return nil }
        guard VSIFSeekL(file, 0, SEEK_END) == 0 else { return nil }
        let size = VSIFTellL(file)
        guard size <= UInt64(maximumBytes) else {
            throw MeridianError(.badInput, "the VRT is larger than \(maximumBytes >> 20) MiB", at: SourceLocation(file: name))
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard VSIFSeekL(file, 0, SEEK_SET) == 0 else { return nil }
        bytes.removeLast(bytes.count - bytes.withUnsafeMutableBytes { VSIFReadL($0.baseAddress, 1, $0.count, file) })
        return bytes
    }

    /// A dataset a VRT names (the element's text, and whether it is relative to the VRT), or
    /// the language of a pixel function (`python`: code in the file, which is never run).
    struct Source {
        var text: String
        var relativeToVRT: Bool
        var isPixelFunctionLanguage = false
    }

    /// The datasets the VRT's text names, in document order, as GDAL's XML parser reads them
    /// (none when it cannot parse the text: GDAL cannot open it either).
    static func sources(in bytes: [UInt8]) -> [Source] {
        guard let root = String(decoding: bytes, as: UTF8.self).withCString({ CPLParseXMLString($0) }) else { return [] }
        defer { CPLDestroyXMLNode(root) }
        var found: [Source] = []
        // Depth first in document order (a node's children before its next sibling), with a
        // stack of its own: a crafted file nests deeply.
        var stack: [UnsafeMutablePointer<CPLXMLNode>] = [root]
        while let node = stack.popLast() {
            if let next = node.pointee.psNext { stack.append(next) }
            guard node.pointee.eType == CXT_Element else { continue }
            if let child = node.pointee.psChild { stack.append(child) }
            let element = String(cString: node.pointee.pszValue).lowercased()
            guard namingElements.contains(element) || element == "pixelfunctionlanguage" else { continue }
            var text = "", relative = false
            var child = node.pointee.psChild
            while let part = child {
                let value = String(cString: part.pointee.pszValue)
                if part.pointee.eType == CXT_Text {
                    text += value
                } else if part.pointee.eType == CXT_Attribute, value.lowercased() == "relativetovrt", let content = part.pointee.psChild {
                    // GDAL takes atoi() of a raster VRT's attribute and CPLTestBool() of an
                    // OGR VRT's, which disagree on "yes" and "2": only "1" is relative to both.
                    relative = String(cString: content.pointee.pszValue) == "1"
                }
                child = part.pointee.psNext
            }
            found.append(Source(text: text, relativeToVRT: relative, isPixelFunctionLanguage: element == "pixelfunctionlanguage"))
        }
        return found
    }

    /// Where the names stand in a VRT, found one after another: each is looked for from the
    /// end of the one before, and lines are counted once over the whole file (a catalog's VRT
    /// names thousands of files).
    struct Cursor {
        let bytes: [UInt8]
        /// Where the next search starts, the line it is on (1-based) and where that line starts.
        var offset = 0, line = 1, lineStart = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// Set once a name is not found as written: the search does not start over from there
        /// for each later name (a crafted VRT of a million escaped names would take hours).
        var lost = false

        /// `text`'s line and column in `file`, found from here on; the file alone when it is not
        /// found as written (escaped, split), and for every later name.
        mutating func locate(_ text: String, file: String) -> SourceLocation {
            let needle = Array(text.utf8)
            guard !lost, !needle.isEmpty else { return SourceLocation(file: file) }
            var index = offset
            while index + needle.count <= bytes.count {
                if bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle) {
                    advance(to: index)
                    let location = SourceLocation(file: file, line: line, column: index - lineStart + 1)
                    advance(to: index + needle.count)
                    return location
                }
                index += 1
            }
            lost = true
            return SourceLocation(file: file)
        }

        /// Moves the search's start to `end`, counting the lines passed.
        private mutating func advance(to end: Int) {
            for i in offset..<end where bytes[i] == UInt8(ascii: "\n") {
                line += 1
                lineStart = i + 1
            }
            offset = end
        }
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
