// A socket's classic BPF filter: SO_ATTACH_FILTER and SO_DETACH_FILTER
// (sk_attach_filter, sk_detach_filter and bpf_check_classic in
// net/core/filter.c, from sk_setsockopt in net/core/sock.c), and its run
// on each datagram the socket would receive (sk_filter_trim_cap), where
// net/netlink/af_netlink.c runs it: netlink_unicast (replies and acks),
// do_one_broadcast (notifications) and netlink_dump (a dump's datagrams).

package nlwire

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/net/bpf"

	"github.com/netsimlab/netsim/errno"
)

// bpfMaxInsns is BPF_MAXINSNS: the most instructions a classic program has.
const bpfMaxInsns = 4096

// skfLLOff is SKF_LL_OFF as a load's unsigned offset: absolute loads from
// it up address the link-layer and network headers (SKF_LL_OFF,
// SKF_NET_OFF) or the ancillary data (SKF_AD_OFF) rather than the message.
const skfLLOff = 0xffe00000

// SetBPF attaches the classic BPF program filter to the socket, replacing
// the one attached, as SO_ATTACH_FILTER does. From then on the program
// runs over the bytes of each datagram the socket would receive (a reply,
// an ack, a notification, a dump's datagram, each as the kernel builds it:
// its first byte is the first message's nlmsghdr): a datagram for which it
// returns 0 is dropped, as if it had never been sent (a dropped dump
// datagram leaves the dump waiting for a read that never comes, as on
// Linux), and one for which it returns fewer bytes than the datagram holds
// is cut to that many (at least 1), its truesize unchanged. Loads beyond
// the datagram and division by a zero X end the program with 0.
//
// The program is checked as the kernel checks it (EINVAL): 1 to 4096
// instructions, known opcodes, jumps within the program, no division by a
// constant 0, scratch slots 0 to 15 read only where every path has stored
// them, and a return as the last instruction. Programs the kernel accepts
// but netsim cannot run are refused by name with EOPNOTSUPP: ancillary
// loads other than the length (SKF_AD_NLATTR, SKF_AD_PROTOCOL, ...), loads
// relative to the headers (SKF_NET_OFF, SKF_LL_OFF), and A's negation.
// Errors are *os.SyscallError("setsockopt", ...), as mdlayher/socket's.
//
// The program runs in golang.org/x/net/bpf's VM.
//
// Kernel: sk_attach_filter (net/core/filter.c); sk_filter_trim_cap.
func (s *Socket) SetBPF(filter []bpf.RawInstruction) error {
	if len(filter) == 0 {
		// mdlayher/socket refuses it before any system call.
		return os.NewSyscallError("setsockopt", syscall.EINVAL)
	}
	vm, err := classicProgram(filter)
	if err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed("setsockopt")
	}
	s.filter = vm
	return nil
}

// RemoveBPF detaches the socket's filter (SO_DETACH_FILTER); without one
// it fails with ENOENT, as Linux does.
//
// Kernel: sk_detach_filter (net/core/filter.c).
func (s *Socket) RemoveBPF() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed("setsockopt")
	}
	if s.filter == nil {
		return os.NewSyscallError("setsockopt", syscall.ENOENT)
	}
	s.filter = nil
	return nil
}

// filterLocked runs the socket's filter, if any, over datagram b: it
// returns b, or b cut to the program's answer, and false when the program
// drops it.
//
// Kernel: sk_filter → sk_filter_trim_cap (with cap 1).
//
// +checklocks:s.mu
func (s *Socket) filterLocked(b []byte) ([]byte, bool) {
	if s.filter == nil {
		return b, true
	}
	n, err := s.filter.Run(b)
	if err != nil || n == 0 {
		// classicProgram admits only instructions the VM runs, so err is
		// never set; a program that could not run drops, as 0 does.
		return nil, false
	}
	if n < len(b) {
		b = b[:n] // n ≥ 1 here: sk_filter_trim_cap's cap of 1 is met
	}
	return b, true
}

// classicProgram checks raw as bpf_check_classic does and returns the VM
// that runs it.
func classicProgram(raw []bpf.RawInstruction) (*bpf.VM, error) {
	if len(raw) > bpfMaxInsns {
		return nil, errno.Errorf(syscall.EINVAL, "a classic BPF program has at most %d instructions", bpfMaxInsns)
	}
	prog, _ := bpf.Disassemble(raw)
	for i, ins := range prog {
		if err := runnable(i, ins); err != nil {
			return nil, err
		}
	}
	if err := scratchStoredBeforeLoad(prog); err != nil {
		return nil, err
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		// Jumps past the end, a division by a constant 0, no return at
		// the end: bpf_check_classic's EINVAL.
		return nil, errno.New(syscall.EINVAL, err.Error())
	}
	return vm, nil
}

// runnable refuses instruction i when it is one the kernel does not know
// (EINVAL) or one it runs and golang.org/x/net/bpf's VM does not
// (EOPNOTSUPP, by name).
func runnable(i int, ins bpf.Instruction) error {
	notModelled := func(what string) error {
		return errno.Errorf(syscall.EOPNOTSUPP, "instruction %d: %s is not modelled by netsim's socket filter", i, what)
	}
	switch ins := ins.(type) {
	case bpf.RawInstruction:
		return errno.Errorf(syscall.EINVAL, "instruction %d: unknown opcode %#04x", i, ins.Op)
	case bpf.NegateA:
		return notModelled("BPF_ALU|BPF_NEG")
	case bpf.LoadExtension:
		if ins.Num != bpf.ExtLen {
			return notModelled(fmt.Sprintf("the ancillary load SKF_AD_OFF+%d", int(ins.Num)))
		}
	case bpf.LoadAbsolute:
		if ins.Off >= skfLLOff {
			return notModelled("a load relative to the network or link-layer header (SKF_NET_OFF, SKF_LL_OFF)")
		}
	}
	return nil
}

// scratchStoredBeforeLoad refuses a program that may read a scratch slot
// no path to the read has stored: the kernel's check walks the program
// once, keeping the set of slots stored on the way in; a jump hands its
// set to its targets (each target keeps the slots stored on every way in)
// and the fall-through after it starts with every slot.
//
// Kernel: check_load_and_stores (net/core/filter.c).
func scratchStoredBeforeLoad(prog []bpf.Instruction) error {
	const all = 0xffff
	in := make([]uint16, len(prog)) // slots stored on every jump into pc
	for i := range in {
		in[i] = all
	}
	valid := uint16(0)
	to := func(pc int, skip uint32) {
		if t := pc + 1 + int(skip); t < len(in) {
			in[t] &= valid
		}
	}
	for pc, ins := range prog {
		valid &= in[pc]
		switch ins := ins.(type) {
		case bpf.StoreScratch:
			valid |= 1 << ins.N
		case bpf.LoadScratch:
			if valid&(1<<ins.N) == 0 {
				return errno.Errorf(syscall.EINVAL, "instruction %d: scratch slot %d is read before it is stored", pc, ins.N)
			}
		case bpf.Jump:
			to(pc, ins.Skip)
			valid = all
		case bpf.JumpIf:
			to(pc, uint32(ins.SkipTrue))
			to(pc, uint32(ins.SkipFalse))
			valid = all
		case bpf.JumpIfX:
			to(pc, uint32(ins.SkipTrue))
			to(pc, uint32(ins.SkipFalse))
			valid = all
		}
	}
	return nil
}
