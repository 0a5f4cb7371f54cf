@testable import MeridianCore
import Testing

@Suite struct PlatformTests {
    @Test func aFileWrittenThroughPlatformReadsBackWithItsTime() throws {
        var template = Array("/tmp/meridian-core-XXXXXX".utf8CString)
        let made = mkstemp(&template)
        try #require(made >= 0)
        close(made)
        let path = String(cString: template)
        defer { unlink(path) }
        let descriptor = Platform.open(path, O_WRONLY | O_TRUNC)
        try #require(descriptor >= 0)
        let bytes: [UInt8] = Array("portable\n".utf8)
        #expect(bytes.withUnsafeBytes { Platform.write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        #expect(Platform.synchronize(descriptor))
        #expect(close(descriptor) == 0)
        #expect(!Platform.synchronize(descriptor))  // closed: the failure is reported, not hidden
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(Int(status.st_size) == bytes.count)
        let time = Platform.modificationTime(of: status)
        #expect(time.seconds > 1_700_000_000)  // after 2023: a real time, not a zero field
        #expect((0..<1_000_000_000).contains(time.nanoseconds))
        #expect(Platform.open(path + ".missing", O_RDONLY) == -1)
    }

    @Test func theExecutableIsFound() throws {
        let path = try #require(Platform.executablePath())
        #expect(path.hasPrefix("/"))
        #expect(access(path, X_OK) == 0)
    }

    @Test func loadedSymbolsAreSeenAndOthersAreNot() {
        #expect(Platform.hasLoadedSymbol("malloc"))
        #expect(!Platform.hasLoadedSymbol("meridian_no_such_symbol_anywhere"))
    }

    @Test func freeTakesWhatMallocGave() {
        let pointer = malloc(64)
        #expect(pointer != nil)
        Platform.free(pointer)
    }
}
