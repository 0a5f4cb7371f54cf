import Foundation
import Testing

/// The Markdown pages people read, relative to the package root: the README, ARCHITECTURE.md,
/// the benchmarks' README and every subcommand's manual in docs/.
let documentationPages: [String] = {
    let docs = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("docs").path)) ?? []
    return ["README.md", "ARCHITECTURE.md", "Benchmarks/README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
}()

/// A Markdown page read as GitHub shows it: its lines, which of them lie inside fenced code.
struct MarkdownPage {
    let path: String
    let lines: [String]
    /// For each line, whether it is inside a fenced code block (fences included).
    let inCode: [Bool]

    init(_ path: String) throws {
        self.path = path
        lines = try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var fenced = false
        inCode = lines.map { line in
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                fenced.toggle()
                return true
            }
            return fenced
        }
    }

    /// Every link and image target outside code (fenced blocks and inline code spans).
    var linkTargets: [String] {
        let link = #/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/#
        return zip(lines, inCode).filter { !$0.1 }.flatMap { line, _ in
            // Inline code spans are every other piece between backticks.
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            return prose.matches(of: link).map { String($0.output.1) }
        }
    }

    /// The anchors GitHub gives the page's headings: lowercase, letters, digits, `-` and `_`
    /// kept, spaces made hyphens, everything else dropped; a repeated anchor gets `-1`, `-2`, ….
    var anchors: Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for (line, code) in zip(lines, inCode) where !code {
            guard let text = line.wholeMatch(of: #/#{1,6} (.*)/#)?.output.1 else { continue }
            let slug = String(text.lowercased().compactMap { c -> Character? in
                c == " " ? "-" : (c.isLetter || c.isNumber || c == "-" || c == "_") ? c : nil
            })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }
}

/// The documentation cannot go stale silently: its links lead somewhere, ARCHITECTURE.md names
/// every target Package.swift declares, and the examples that show their output show what
/// Meridian prints.
@Suite struct DocumentationTests {
    @Test func pagesAreThere() {
        #expect(documentationPages.count >= 8)
        for page in ["docs/convert.md", "docs/tile.md", "docs/coverage.md"] {
            #expect(documentationPages.contains(page))
        }
    }

    @Test func readmeStaysAnEntry() throws {
        #expect(try MarkdownPage("README.md").lines.count <= 450)
    }

    @Test(arguments: documentationPages)
    func everyRelativeLinkLeadsToAFileThatExists(page: String) throws {
        let markdown = try MarkdownPage(page)
        let folder = packageRoot.appendingPathComponent(page).deletingLastPathComponent()
        let root = packageRoot.standardizedFileURL.path
        for target in markdown.linkTargets where !target.contains("://") && !target.hasPrefix("mailto:") {
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let file = parts[0].isEmpty ? packageRoot.appendingPathComponent(page) : folder.appendingPathComponent(parts[0]).standardizedFileURL
            #expect(file.path.hasPrefix(root + "/"), "\(page): \(target) leads outside the repository")
            guard FileManager.default.fileExists(atPath: file.path) else {
                Issue.record("\(page): \(target): no such file")
                continue
            }
            if parts.count == 2, file.pathExtension == "md" {
                let anchors = try MarkdownPage(String(file.path.dropFirst(root.count + 1))).anchors
                let found = anchors.contains(parts[1])  // not in the expectation: it would print every anchor
                #expect(found, "\(page): \(target): no heading has that anchor")
            }
        }
    }

    /// The scripts a new user runs build what they run: `swift build` builds only the last of
    /// several `--product`s (examples/chart-tiles.sh built no `meridian`), and a script that
    /// draws (`render`) needs `meridian-draw` built too (examples/render-pictures.sh did not).
    @Test func scriptsBuildEveryExecutableTheyRun() throws {
        var scripts: [String] = []
        for folder in ["Scripts", "examples"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent(folder).path)
            scripts += names.map { folder + "/" + $0 }
        }
        var checked = 0
        for script in scripts.sorted() {
            guard let text = try? String(contentsOf: packageRoot.appendingPathComponent(script), encoding: .utf8),
                  text.hasPrefix("#!/usr/bin/env bash") else { continue }
            checked += 1
            for line in text.split(separator: "\n") where line.contains("swift build") {
                for command in line.components(separatedBy: "swift build").dropFirst() {
                    #expect(command.components(separatedBy: "--product").count <= 2, "\(script): \(line)")
                }
            }
            if text.contains("\"$meridian\" render") {
                #expect(text.contains("meridian-draw"), "\(script) renders but does not build meridian-draw")
            }
        }
        #expect(checked >= 5)
    }

    @Test func architectureNamesEveryTarget() throws {
        let package = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let architecture = try String(contentsOf: packageRoot.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        let declared = package.matches(of: #/\.(target|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)"/#)
            .map { (kind: String($0.output.1), name: String($0.output.2)) }
        #expect(declared.filter { $0.kind == "target" }.count >= 9)
        #expect(declared.contains { $0.name == "MeridianGeometry" })
        for target in declared {
            let named = architecture.contains("`\(target.name)`")  // not in the expectation: it would print the page
            #expect(named, "ARCHITECTURE.md does not name the \(target.kind) \(target.name)")
        }
    }

    /// An example in a page's `sh` block that shows its output: `$ meridian …` and the lines
    /// under it up to the next command, blank line or the block's end.
    struct ShownOutput: CustomTestStringConvertible {
        let page: String
        let line: Int
        let arguments: [String]
        let output: [String]
        var testDescription: String { "\(page):\(line)" }
    }

    /// Examples with their output shown, that read only files in the repository and write none
    /// (no `-o`, no redirection, no output folder): those can run here as they are written.
    static let shownOutputs: [ShownOutput] = documentationPages.flatMap { page -> [ShownOutput] in
        guard let markdown = try? MarkdownPage(page) else { return [] }
        var found: [ShownOutput] = []
        for (index, line) in markdown.lines.enumerated() where markdown.inCode[index] && line.hasPrefix("$ meridian ") {
            let command = String(line.dropFirst(2)).replacing(#/\s+#\s.*$/#, with: "")
            guard !command.contains(where: { "|<>*'\"$".contains($0) }) else { continue }  // shell syntax: not run here
            let arguments = command.split(separator: " ").map(String.init)
            // A path: a word with a slash and a letter (not a tile's 12/655/1583) or a file extension.
            let pathLike = arguments.dropFirst().filter {
                !$0.hasPrefix("-") && ($0.contains("/") && $0.contains(where: \.isLetter) || $0.wholeMatch(of: #/.*\.[A-Za-z]\w*/#) != nil)
            }
            guard !arguments.contains("-o"),
                  pathLike.allSatisfy({ FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent($0).path) })
            else { continue }
            let output = markdown.lines[(index + 1)...].prefix { !$0.isEmpty && !$0.hasPrefix("$") && !$0.hasPrefix("```") }
            if !output.isEmpty { found.append(ShownOutput(page: page, line: index + 1, arguments: Array(arguments.dropFirst()), output: Array(output))) }
        }
        return found
    }

    @Test func examplesWithOutputAreFound() {
        // info and coverage validate in the README and their pages, coverage test, mapkit point.
        #expect(Self.shownOutputs.count >= 6, "\(Self.shownOutputs.map(\.testDescription))")
    }

    @Test(arguments: DocumentationTests.shownOutputs)
    func exampleOutputIsWhatMeridianPrints(example: ShownOutput) throws {
        let run = try meridian(example.arguments, in: packageRoot)
        #expect(run.status == 0, "\(run.stderr)")
        // Any line break (CSV's CRLF too) ends a line as the page shows it.
        var printed = run.stdout.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        if printed.last == "" { printed.removeLast() }
        #expect(printed == example.output,
                "\(example.testDescription) shows:\n\(example.output.joined(separator: "\n"))\nMeridian prints:\n\(run.stdout)")
    }
}
