import Foundation
import Testing

@Suite struct InterruptionTests {
    /// A conversion interrupted part-way (Ctrl-C, `kill`) removes its temporary file and leaves
    /// no output: the input is a pipe that stays open, so the run is caught mid-stream.
    @Test(.timeLimit(.minutes(10)), arguments: [SIGINT, SIGTERM])
    func interruptedConversionLeavesNoFile(_ signal: Int32) throws {
        try withTemporaryFolder { folder in
            let output = folder.appendingPathComponent("out.geojson")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: meridianBinary)
            process.arguments = ["convert", "-", "-o", output.path]
            let input = Pipe()
            process.standardInput = input
            process.standardError = FileHandle.nullDevice
            try process.run()
            var text = "{\"type\":\"FeatureCollection\",\"features\":["
            for i in 0..<2_000 {
                text += "{\"type\":\"Feature\",\"properties\":{\"i\":\(i)},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}},"
            }
            input.fileHandleForWriting.write(Data(text.utf8))
            // Wait until the temporary file exists, then interrupt.
            let deadline = Date().addingTimeInterval(10)
            while contents(of: folder).isEmpty && Date() < deadline { usleep(10_000) }
            #expect(contents(of: folder).first?.hasPrefix(".out.geojson.meridian-") == true)
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            try? input.fileHandleForWriting.close()
            #expect(process.terminationStatus == 128 + signal)
            #expect(contents(of: folder).isEmpty)
        }
    }
}
