import Foundation
import Synchronization
import Testing
import MeridianCore
@testable import MeridianFormats
import MeridianTestSupport

/// One run at a time holds an output's lock (`.NAME.meridian-lock` beside it), however many
/// find the same lock left behind by a run that was killed.
@Suite struct OutputClaimTests {
    /// A lock left by a killed run (its process gone), found by many claimants at once: exactly
    /// one takes it over, every other is refused as cannot-create-output, and the lock file then
    /// holds the winner's process id. Taking over was check-then-act (read the dead process id,
    /// remove the file, create it again): two claimants that both read the dead id both won, the
    /// second removing the first's fresh lock.
    @Test func manyClaimantsOfOneStaleLockOneWins() throws {
        try withTemporaryFolderPath { folder in
            let claimants = 8
            for round in 0..<150 {
                let output = folder + "/out-\(round).pmtiles", lock = folder + "/.out-\(round).pmtiles.meridian-lock"
                try Data("4194303\n".utf8).write(to: URL(fileURLWithPath: lock))  // above Linux's largest process id
                let race = Race()
                let done = DispatchGroup()
                for _ in 0..<claimants {
                    done.enter()
                    Thread {
                        defer { done.leave() }
                        // All start together, so that they find the stale lock at once.
                        race.ready.add(1, ordering: .relaxed)
                        while race.ready.load(ordering: .relaxed) < claimants { sched_yield() }
                        do {
                            let claim = try OutputClaim(output, container: .file)
                            race.outcomes.withLock { $0.claims.append(claim) }
                        } catch let error as MeridianError {
                            race.outcomes.withLock { $0.refusals.append(error.kind) }
                        } catch {
                            race.outcomes.withLock { $0.others.append("\(error)") }
                        }
                    }.start()
                }
                done.wait()
                let (claims, refusals, others) = race.outcomes.withLock { ($0.claims, $0.refusals, $0.others) }
                #expect(claims.count == 1, "round \(round): \(claims.count) claimants took the stale lock over")
                #expect(refusals.count == claimants - claims.count && refusals.allSatisfy { $0 == .cannotCreateOutput }, "round \(round): \(refusals)")
                #expect(others.isEmpty, "round \(round): \(others)")
                #expect(OutputClaim.holder(of: lock) == getpid(), "round \(round)")
                for claim in claims { claim.release() }
                #expect(!FileManager.default.fileExists(atPath: lock), "round \(round): the lock was left")
                if claims.count != 1 { break }
            }
        }
    }

    /// What the claimants of one round share.
    final class Race: Sendable {
        let ready = Atomic<Int>(0)
        let outcomes = Mutex<(claims: [OutputClaim], refusals: [MeridianError.Kind], others: [String])>(([], [], []))
    }

    /// A lock held by a live claim is not taken over, whatever the file says: one whose
    /// process id is gone, or that holds none; once released, the next claim takes it.
    @Test func aHeldLockIsNotTakenOverWhateverItHolds() throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/out", lock = folder + "/.out.meridian-lock"
            let first = try OutputClaim(output, container: .folder)
            for text in ["4194303\n", "", "not a process\n"] {
                try Data(text.utf8).write(to: URL(fileURLWithPath: lock))  // the same file, rewritten in place
                #expect { try OutputClaim(output, container: .folder) } throws: { ($0 as? MeridianError)?.kind == .cannotCreateOutput }
            }
            first.release()
            #expect(!FileManager.default.fileExists(atPath: lock))
            let second = try OutputClaim(output, container: .folder)
            #expect(OutputClaim.holder(of: lock) == getpid())
            second.release()
        }
    }

    /// A claim's lock file is registered for the signal handler as the one file its name may be
    /// removed as: should the name come to hold another file (another run's lock, after this
    /// one's was removed), the handler leaves it; while it names the claim's own, the handler
    /// removes it. (Registered so before the name exists, a signal at any instant of its making
    /// leaves nothing: issue 31's lock-file window.)
    @Test func theSignalHandlerRemovesALockOnlyWhileItIsTheClaims() throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/out.pmtiles", lock = folder + "/.out.pmtiles.meridian-lock"
            let claim = try OutputClaim(output, container: .file)
            #expect(OutputClaim.holder(of: lock) == getpid())
            let slot = try #require(Self.slot(of: lock))
            // Another file takes the name (as another run's lock would, once this one's was removed).
            let other = folder + "/other"
            try Data("4194303\n".utf8).write(to: URL(fileURLWithPath: other))
            #expect(rename(other, lock) == 0)
            TemporaryFiles.removeFromSignalHandler(slot: slot)
            #expect(FileManager.default.fileExists(atPath: lock), "the handler removed a lock that is not the claim's")
            claim.release()
            #expect(FileManager.default.fileExists(atPath: lock), "release removed a lock that is not the claim's")
            #expect(Self.slot(of: lock) == nil)
            try FileManager.default.removeItem(atPath: lock)
            // The claim's own lock, there: the handler removes it.
            let second = try OutputClaim(output, container: .file)
            let secondSlot = try #require(Self.slot(of: lock))
            TemporaryFiles.removeFromSignalHandler(slot: secondSlot)
            #expect(!FileManager.default.fileExists(atPath: lock))
            second.release()
            #expect(Self.slot(of: lock) == nil)
        }
    }

    /// The signal handler's table entry for `path`, if it has one.
    static func slot(of path: String) -> Int? {
        (0..<TemporaryFiles.slots).first { TemporaryFiles.table[$0].map { String(cString: $0) } == path }
    }

    /// What a killed run staged beside its output (a file being written, a staging folder, a
    /// copy being read) is removed by the next claim of that output once it holds the lock, and
    /// reported; the lock, an interrupted run's resume state and other outputs' files are
    /// kept; and while a live run holds the lock, nothing of its is touched.
    @Test func aClaimRemovesWhatAKilledRunStagedAndNothingElse() throws {
        try withTemporaryFolderPath { folder in
            let output = folder + "/out.mbtiles"
            let stale = [".out.mbtiles.meridian-Ab12Cd", ".out.mbtiles.meridian-4242", ".out.mbtiles.meridian-partial.reading-Xy34Zw"]
            let kept = [".out.mbtiles.meridian-partial", ".out.mbtiles.meridian-partial-journal", ".other.mbtiles.meridian-Ab12Cd", "out.mbtiles.meridian-Ab12Cd"]
            for name in stale + kept where name != ".out.mbtiles.meridian-4242" {
                try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
            }
            try FileManager.default.createDirectory(atPath: folder + "/.out.mbtiles.meridian-4242/0/0", withIntermediateDirectories: true)
            try Data("tile".utf8).write(to: URL(fileURLWithPath: folder + "/.out.mbtiles.meridian-4242/0/0/0.png"))
            // A link inside a staging folder is removed, never followed.
            try Data("elsewhere".utf8).write(to: URL(fileURLWithPath: folder + "/target"))
            #expect(symlink(folder + "/target", folder + "/.out.mbtiles.meridian-4242/0/link") == 0)

            // Held by a live claim, a second claimant is refused and removes nothing.
            let live = try OutputClaim(output, container: .file, continuing: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/.out.mbtiles.meridian-Live01"))
            #expect { try OutputClaim(output, container: .file) } throws: { ($0 as? MeridianError)?.kind == .cannotCreateOutput }
            #expect(FileManager.default.fileExists(atPath: folder + "/.out.mbtiles.meridian-Live01"))
            live.release()
            try FileManager.default.removeItem(atPath: folder + "/.out.mbtiles.meridian-Live01")
            for name in stale + ["target"] + kept.filter({ !$0.hasPrefix(".out.mbtiles.meridian-partial") }) {
                try? Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/" + name), options: .withoutOverwriting)
            }

            let notes = Mutex<[String]>([])
            OutputClaim.leftoverNotes = { note in notes.withLock { $0.append(note.location?.file ?? "") } }
            defer { OutputClaim.leftoverNotes = nil }
            let claim = try OutputClaim(output, container: .file, continuing: true)
            defer { claim.release() }
            let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
            #expect(left.isDisjoint(with: stale), "left \(left)")
            #expect(Set(kept + ["target", ".out.mbtiles.meridian-lock"]).isSubset(of: left), "left \(left)")
            // (Other tests' claims may report at the same time: only this folder's count.)
            #expect(Set(notes.withLock { $0 }.filter { $0.hasPrefix(folder + "/") }) == Set(stale.map { folder + "/" + $0 }))
        }
    }
}
