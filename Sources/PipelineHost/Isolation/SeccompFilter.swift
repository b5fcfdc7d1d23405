#if canImport(Glibc)
import Glibc
#endif

/// A small classic-BPF seccomp filter for workers, installed with prctl(PR_SET_SECCOMP) (no libseccomp needed).
///
/// Policy: a decoder needs files (fonts, its own library, resources next to an SVG), memory and threads, but never
/// a new program or a network. So:
/// - execve / execveat → EPERM (no new programs, even if a coder is subverted);
/// - socket() for anything but AF_UNIX → EACCES (no network; AF_UNIX stays because GLib may probe the session
///   bus and must get a clean failure from connect, not a dead worker);
/// - ptrace, process_vm_writev, bpf, kexec_load → EPERM;
/// - any other architecture or the x32 syscall ABI → the process is killed (such calls would bypass the table);
/// - everything else is allowed.
/// Only x86-64 is described; elsewhere `install` reports that it did nothing.
enum SeccompFilter {
    private struct Instruction {
        var code: UInt16
        var jt: UInt8
        var jf: UInt8
        var k: UInt32
    }

    private struct Program {
        var length: UInt16
        var filter: UnsafeMutablePointer<Instruction>?
    }

    // BPF opcodes (linux/bpf_common.h).
    private static let loadWord: UInt16 = 0x00 | 0x00 | 0x20  // BPF_LD | BPF_W | BPF_ABS
    private static let jumpEqual: UInt16 = 0x05 | 0x10 | 0x00  // BPF_JMP | BPF_JEQ | BPF_K
    private static let jumpGreaterOrEqual: UInt16 = 0x05 | 0x30 | 0x00  // BPF_JMP | BPF_JGE | BPF_K
    private static let returnValue: UInt16 = 0x06 | 0x00  // BPF_RET | BPF_K

    private static let allow: UInt32 = 0x7fff_0000
    private static let killProcess: UInt32 = 0x8000_0000
    private static func fail(_ code: Int32) -> UInt32 { 0x0005_0000 | UInt32(code) }

    // struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
    private static let offsetNumber: UInt32 = 0
    private static let offsetArchitecture: UInt32 = 4
    private static let offsetFirstArgument: UInt32 = 16

    /// What `install` put in place, for logs and reports.
    static let summary = "seccomp: no execve/execveat, no non-AF_UNIX sockets, no ptrace/process_vm_writev/bpf/kexec"

    /// Installs the filter on every thread of the process (seccomp(2) with SECCOMP_FILTER_FLAG_TSYNC; where that is
    /// refused, prctl on the calling thread, which threads created later inherit — the worker calls this before any
    /// coder runs). Requires PR_SET_NO_NEW_PRIVS first. Returns an error text.
    static func install() -> String? {
        #if arch(x86_64)
        let auditArchX86_64: UInt32 = 0xC000_003E
        let x32Bit: UInt32 = 0x4000_0000
        let execve: UInt32 = 59, execveat: UInt32 = 322, socket: UInt32 = 41, ptrace: UInt32 = 101
        let processVMWritev: UInt32 = 311, bpf: UInt32 = 321, kexecLoad: UInt32 = 246, kexecFileLoad: UInt32 = 320
        var program: [Instruction] = [
            Instruction(code: loadWord, jt: 0, jf: 0, k: offsetArchitecture),
            Instruction(code: jumpEqual, jt: 1, jf: 0, k: auditArchX86_64),
            Instruction(code: returnValue, jt: 0, jf: 0, k: killProcess),
            Instruction(code: loadWord, jt: 0, jf: 0, k: offsetNumber),
            Instruction(code: jumpGreaterOrEqual, jt: 0, jf: 1, k: x32Bit),
            Instruction(code: returnValue, jt: 0, jf: 0, k: killProcess),
        ]
        for denied in [execve, execveat, ptrace, processVMWritev, bpf, kexecLoad, kexecFileLoad] {
            program.append(Instruction(code: jumpEqual, jt: 0, jf: 1, k: denied))
            program.append(Instruction(code: returnValue, jt: 0, jf: 0, k: fail(EPERM)))
        }
        program += [
            Instruction(code: jumpEqual, jt: 0, jf: 3, k: socket),
            Instruction(code: loadWord, jt: 0, jf: 0, k: offsetFirstArgument),
            Instruction(code: jumpEqual, jt: 1, jf: 0, k: UInt32(AF_UNIX)),
            Instruction(code: returnValue, jt: 0, jf: 0, k: fail(EACCES)),
            Instruction(code: returnValue, jt: 0, jf: 0, k: allow),
        ]
        let seccompSyscall = 317, setModeFilter: UInt = 1, threadSync: UInt = 1
        let status = program.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var fprog = Program(length: UInt16(buffer.count), filter: buffer.baseAddress)
            return withUnsafeMutablePointer(to: &fprog) { pointer in
                if LinuxSystem.syscall3(seccompSyscall, setModeFilter, threadSync, UInt(bitPattern: pointer)) == 0 { return 0 }
                return LinuxSystem.prctl(LinuxSystem.PR_SET_SECCOMP, LinuxSystem.SECCOMP_MODE_FILTER, UInt(bitPattern: pointer))
            }
        }
        return status == 0 ? nil : "prctl(PR_SET_SECCOMP): \(LinuxSystem.describe(errno))"
        #else
        return "no seccomp filter for this architecture"
        #endif
    }
}
