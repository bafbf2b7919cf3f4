package nlwire_test

// Sockets as clients configure them, against the real kernel: the same
// sequence of dials (mdlayher/netlink's Config), socket filters and calls
// on a closed socket runs on Linux (a private namespace, as root, through
// mdlayher/netlink's own sockets) and on nlwire, and each prints what it
// saw. Linux's transcript is kept in testdata/sockconfig.transcript
// (rewritten with -update as root); nlwire must print the same, and
// TestSockConfigRealKernel checks that the running kernel still does.
//
// An error prints as its text, less the extack-style message netsim
// adds to errors Linux gives bare (SetBPF's EINVAL says which check
// failed; the unit tests in sockfilter_test.go check those messages).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/bpf"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/internal/linediff"
	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
	"github.com/netsimlab/netsim/rtnl"
)

// sockSide is a side the socket sequence runs on: W.Real or W.Sim.
type sockSide interface {
	DialConfig(cfg *netlink.Config) (*netlink.Conn, error)
	Drain(c *netlink.Conn) ([]netlink.Message, error)
	Settle(W.Step)
}

// sockErr renders err as the sequence prints it: "ok", or its text less
// any netsim extack-style message.
func sockErr(err error) string {
	if err == nil {
		return "ok"
	}
	s := err.Error()
	var e *errno.Error
	if errors.As(err, &e) && e.Msg != "" {
		s = strings.Replace(s, ": "+e.Msg, "", 1)
	}
	return s
}

var msgNames = map[netlink.HeaderType]string{
	netlink.Error: "NLMSG_ERROR", netlink.Done: "NLMSG_DONE",
	uapi.RTM_NEWLINK: "RTM_NEWLINK", uapi.RTM_NEWADDR: "RTM_NEWADDR", uapi.RTM_NEWROUTE: "RTM_NEWROUTE",
}

// msgList renders messages as their types (an error's with its code) and
// the port ids they carry.
func msgList(ms []netlink.Message, err error) string {
	var parts []string
	for _, m := range ms {
		name, ok := msgNames[m.Header.Type]
		if !ok {
			name = fmt.Sprint(int(m.Header.Type))
		}
		if m.Header.Type == netlink.Error && len(m.Data) >= 4 {
			name += fmt.Sprintf("(%d)", int32(binary.LittleEndian.Uint32(m.Data)))
		}
		parts = append(parts, name)
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing")
	}
	if err != nil {
		parts = append(parts, "error "+sockErr(err))
	}
	return strings.Join(parts, " ")
}

// setLoMTU is an RTM_NEWLINK setting lo's MTU, acknowledged.
func setLoMTU(mtu uint32) netlink.Message {
	return W.Msg(uapi.RTM_NEWLINK, W.Ack, W.IfInfo{Index: 1}.Bytes(), W.U32(uapi.IFLA_MTU, mtu))
}

// noop is the request of mdlayher/netlink's own tests: type 0, which the
// kernel does not serve but acknowledges.
var noop = netlink.Message{Header: netlink.Header{Flags: netlink.Request | netlink.Acknowledge}}

// dropType is a filter that drops the datagrams whose first message is of
// type typ, as tailscale's netmon and vishvananda/netlink's subscribers
// select messages: nlmsg_type is the half-word at offset 4, read in
// network order.
func dropType(typ uint16) []bpf.Instruction {
	return []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(typ>>8 | typ<<8), SkipTrue: 1},
		bpf.RetConstant{Val: 0xffffffff},
		bpf.RetConstant{Val: 0},
	}
}

func mustAssemble(prog []bpf.Instruction) []bpf.RawInstruction {
	raw, err := bpf.Assemble(prog)
	if err != nil {
		panic(err)
	}
	return raw
}

// runSockSeq runs the sequence on side and returns its transcript.
func runSockSeq(side sockSide) (string, error) {
	var b strings.Builder
	say := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	settle := func() { side.Settle(W.Step{}) }
	closeAll := func(cs ...*netlink.Conn) {
		for _, c := range cs {
			c.Close()
		}
	}

	say("# Config.PID: bound if free, EADDRINUSE if taken (netlink_bind, netlink_insert)")
	p1, err := side.DialConfig(&netlink.Config{PID: 4242})
	if err != nil {
		return b.String(), err
	}
	say("dial pid 4242: ok, port %d", p1.PID())
	_, err = side.DialConfig(&netlink.Config{PID: 4242})
	say("dial pid 4242 again: %s", sockErr(err))
	sent, err := p1.Send(noop)
	if err != nil {
		return b.String(), err
	}
	ms, err := p1.Receive()
	if err != nil || len(ms) != 1 {
		return b.String(), fmt.Errorf("no ack: %v", err)
	}
	say("ack of the request from port %d: %s, port %d", sent.Header.PID, msgList(ms, err), ms[0].Header.PID)
	p1.Close()
	p2, err := side.DialConfig(&netlink.Config{PID: 4242})
	say("closed, dial pid 4242: %s", sockErr(err))
	if err != nil {
		return b.String(), err
	}
	defer p2.Close()

	say("# Config.Groups: RTMGRP_LINK|RTMGRP_IPV4_IFADDR joined at bind; Config.Strict")
	l, err := side.DialConfig(&netlink.Config{Groups: 1<<(uapi.RTNLGRP_LINK-1) | 1<<(uapi.RTNLGRP_IPV4_IFADDR-1)})
	if err != nil {
		return b.String(), err
	}
	a, err := side.DialConfig(&netlink.Config{Strict: true})
	if err != nil {
		return b.String(), err
	}
	defer closeAll(l, a)
	_, err = a.Execute(setLoMTU(1400))
	say("set lo mtu 1400: %s", sockErr(err))
	settle()
	say("listener: %s", msgList(side.Drain(l)))
	_, err = a.Execute(addr4(uapi.RTM_NEWADDR, W.Create, 1, "10.0.0.1", 32))
	say("add 10.0.0.1/32 dev lo: %s", sockErr(err))
	settle()
	say("listener: %s", msgList(side.Drain(l)))
	_, err = a.Execute(W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{Index: 1}.Bytes()))
	say("strict: link dump with an ifindex: %s", sockErr(err))

	say("# SetBPF, RemoveBPF: the checks (sk_attach_filter, bpf_check_classic, sk_detach_filter)")
	f, err := side.DialConfig(nil)
	if err != nil {
		return b.String(), err
	}
	defer f.Close()
	say("remove with none attached: %s", sockErr(f.RemoveBPF()))
	say("set no program: %s", sockErr(f.SetBPF(nil)))
	for _, c := range []struct {
		name string
		prog []bpf.RawInstruction
	}{
		{"no return at the end", []bpf.RawInstruction{{Op: 0x20, K: 8}}}, // ld [8]
		{"a jump past the end", []bpf.RawInstruction{{Op: 0x05, K: 1}, {Op: 0x06}}},
		{"a division by a constant 0", []bpf.RawInstruction{{Op: 0x34}, {Op: 0x06}}},
		{"a scratch slot read before it is stored", []bpf.RawInstruction{{Op: 0x60, K: 3}, {Op: 0x16}}},
		{"an unknown opcode", []bpf.RawInstruction{{Op: 0xff}, {Op: 0x06}}},
		{"4097 instructions", make([]bpf.RawInstruction, 4097)},
	} {
		say("set %s: %s", c.name, sockErr(f.SetBPF(c.prog)))
	}
	say("set a slot stored on both ways to its read: %s", sockErr(f.SetBPF(mustAssemble([]bpf.Instruction{
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipTrue: 2},
		bpf.StoreScratch{Src: bpf.RegA, N: 3},
		bpf.Jump{Skip: 1},
		bpf.StoreScratch{Src: bpf.RegX, N: 3},
		bpf.LoadScratch{Dst: bpf.RegA, N: 3},
		bpf.RetA{},
	}))))
	say("remove: %s", sockErr(f.RemoveBPF()))

	say("# a filter on nlmsg_type drops RTM_NEWLINK: notifications, replies, a dump's datagrams")
	for _, g := range []uint32{uapi.RTNLGRP_LINK, uapi.RTNLGRP_IPV4_IFADDR} {
		if err := f.JoinGroup(g); err != nil {
			return b.String(), err
		}
	}
	say("set: %s", sockErr(f.SetBPF(mustAssemble(dropType(uapi.RTM_NEWLINK)))))
	_, err = a.Execute(setLoMTU(1300))
	say("set lo mtu 1300: %s", sockErr(err))
	_, err = a.Execute(addr4(uapi.RTM_NEWADDR, W.Create, 1, "10.0.0.2", 32))
	say("add 10.0.0.2/32 dev lo: %s", sockErr(err))
	settle()
	say("filtered: %s", msgList(side.Drain(f)))
	say("listener: %s", msgList(side.Drain(l)))
	if _, err := f.Send(W.Msg(uapi.RTM_GETLINK, W.Ack, W.IfInfo{Index: 1}.Bytes())); err != nil {
		return b.String(), err
	}
	say("get link lo: %s", msgList(side.Drain(f)))
	if _, err := f.Send(W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes())); err != nil {
		return b.String(), err
	}
	say("link dump: %s", msgList(side.Drain(f)))
	_, err = f.Execute(W.Msg(uapi.RTM_GETADDR, W.Dump, W.IfAddr{}.Bytes()))
	say("address dump while the link dump waits: %s", sockErr(err))
	say("remove: %s", sockErr(f.RemoveBPF()))
	if _, err := f.Send(W.Msg(uapi.RTM_GETLINK, W.Ack, W.IfInfo{Index: 1}.Bytes())); err != nil {
		return b.String(), err
	}
	say("get link lo: %s", msgList(side.Drain(f)))

	say("# a filter's return cuts the datagram (sk_filter_trim_cap)")
	for _, n := range []uint32{20, 8, 4096} {
		err := f.SetBPF(mustAssemble([]bpf.Instruction{bpf.RetConstant{Val: n}}))
		if err != nil {
			return b.String(), err
		}
		if _, err := f.Send(noop); err != nil {
			return b.String(), err
		}
		ms, err := f.Receive()
		say("return %d: %s", n, msgList(ms, err))
	}

	say("# a closed socket")
	f.Close()
	_, err = f.Receive()
	say("receive: %s", sockErr(err))
	_, err = f.Send(noop)
	say("send: %s", sockErr(err))
	say("set option: %s", sockErr(f.SetOption(netlink.ExtendedAcknowledge, true)))
	say("join group: %s", sockErr(f.JoinGroup(1)))
	say("leave group: %s", sockErr(f.LeaveGroup(1)))
	say("set read buffer: %s", sockErr(f.SetReadBuffer(8192)))
	_, err = f.ReadBuffer()
	say("read buffer: %s", sockErr(err))
	say("set deadline: %s", sockErr(f.SetDeadline(time.Time{})))
	say("set read deadline: %s", sockErr(f.SetReadDeadline(time.Time{})))
	say("set bpf: %s", sockErr(f.SetBPF(mustAssemble([]bpf.Instruction{bpf.RetConstant{Val: 1}}))))
	say("remove bpf: %s", sockErr(f.RemoveBPF()))
	_, err = f.SyscallConn()
	say("syscall conn: %s", sockErr(err))
	say("close again: %s", sockErr(f.Close()))
	return b.String(), nil
}

// TestSockConfig compares nlwire's transcript with the real kernel's kept
// one (rewritten first with -update, as root).
func TestSockConfig(t *testing.T) {
	path := transcriptPath("sockconfig")
	if *update {
		real, err := W.NewReal()
		if err != nil {
			t.Skipf("no real kernel namespace: %v", err)
		}
		got, err := runSockSeq(real)
		real.Close()
		require.NoError(t, err, "real kernel:\n%s", got)
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	got, err := runSockSeq(W.NewSim(nlwire.Dial))
	require.NoError(t, err, "nlwire:\n%s", got)
	if d := linediff.Unified(string(want), got); d != "" {
		t.Errorf("nlwire differs from the kernel (- kernel, + nlwire):\n%s", d)
	}
}

// TestSockConfigRealKernel checks that the running kernel still prints
// the kept transcript (skipped without root).
func TestSockConfigRealKernel(t *testing.T) {
	if *update {
		t.Skip("-update rewrites the transcript")
	}
	real, err := W.NewReal()
	if err != nil {
		t.Skipf("no real kernel namespace: %v", err)
	}
	defer real.Close()
	want, err := os.ReadFile(transcriptPath("sockconfig"))
	require.NoError(t, err)
	got, err := runSockSeq(real)
	require.NoError(t, err, "real kernel:\n%s", got)
	if d := linediff.Unified(string(want), got); d != "" {
		t.Errorf("the running kernel differs from the transcript (- kept, + now):\n%s", d)
	}
}

// Port ids are unique within a namespace, not across them (the kernel's
// table is keyed by namespace and port id: netlink_compare): the same
// requested port id binds in two namespaces, and a second time in one is
// EADDRINUSE. Checked on two private namespaces of the running kernel
// (as root) and on two namespaces of a simulated one.
func TestPortIDPerNamespace(t *testing.T) {
	check := func(t *testing.T, dial1, dial2 func(*netlink.Config) (*netlink.Conn, error)) {
		cfg := &netlink.Config{PID: 4242}
		c1, err := dial1(cfg)
		require.NoError(t, err)
		defer c1.Close()
		c2, err := dial2(cfg)
		require.NoError(t, err, "the same port id in another namespace")
		defer c2.Close()
		require.Equal(t, [2]uint32{4242, 4242}, [2]uint32{c1.PID(), c2.PID()})
		_, err = dial2(cfg)
		require.EqualError(t, err, "bind: address already in use")
	}
	t.Run("netsim", func(t *testing.T) {
		k := rtnl.MustNewKernel(rtnl.After)
		other, err := k.NewNet(k.World().NewTask("setup"), "other")
		require.NoError(t, err)
		check(t, func(cfg *netlink.Config) (*netlink.Conn, error) { return nlwire.DialConfig(k.InitNet(), cfg) },
			func(cfg *netlink.Config) (*netlink.Conn, error) { return nlwire.DialConfig(other, cfg) })
	})
	t.Run("linux", func(t *testing.T) {
		var reals [2]*W.Real
		for i := range reals {
			r, err := W.NewReal()
			if err != nil {
				t.Skipf("no real kernel namespace: %v", err)
			}
			defer r.Close()
			reals[i] = r
		}
		check(t, reals[0].DialConfig, reals[1].DialConfig)
	})
}
