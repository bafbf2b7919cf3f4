package nlwire

import (
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/bpf"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rtnl"
)

// Programs SetBPF refuses, each with its errno and the message that says
// which check failed (Linux gives the EINVALs bare: see
// testdata/sockconfig.transcript); the ones Linux runs and netsim's VM
// cannot are refused by name with EOPNOTSUPP.
func TestSetBPFRefuses(t *testing.T) {
	s := newTestSocket(t)
	for _, tc := range []struct {
		name  string
		prog  []bpf.RawInstruction
		errno syscall.Errno
		msg   string
	}{
		{"empty", nil, syscall.EINVAL, "setsockopt: invalid argument"},
		{"too long", make([]bpf.RawInstruction, 4097), syscall.EINVAL,
			"setsockopt: invalid argument: a classic BPF program has at most 4096 instructions"},
		{"unknown opcode", []bpf.RawInstruction{{Op: 0xff}, {Op: 0x06}}, syscall.EINVAL,
			"setsockopt: invalid argument: instruction 0: unknown opcode 0x00ff"},
		{"no return", []bpf.RawInstruction{{Op: 0x20, K: 8}}, syscall.EINVAL,
			"setsockopt: invalid argument: BPF program must end with RetA or RetConstant"},
		{"jump past the end", []bpf.RawInstruction{{Op: 0x05, K: 1}, {Op: 0x06}}, syscall.EINVAL,
			"setsockopt: invalid argument: cannot jump 1 instructions; jumping past program bounds"},
		{"scratch read before store", []bpf.RawInstruction{{Op: 0x60, K: 3}, {Op: 0x16}}, syscall.EINVAL,
			"setsockopt: invalid argument: instruction 0: scratch slot 3 is read before it is stored"},
		{"stored on one way only", mustAssembleInt(t, []bpf.Instruction{
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipTrue: 1},
			bpf.StoreScratch{Src: bpf.RegA, N: 2},
			bpf.LoadScratch{Dst: bpf.RegA, N: 2},
			bpf.RetA{},
		}), syscall.EINVAL, "setsockopt: invalid argument: instruction 2: scratch slot 2 is read before it is stored"},
		{"SKF_AD_NLATTR", mustAssembleInt(t, []bpf.Instruction{
			bpf.LoadConstant{Dst: bpf.RegX, Val: 3},
			bpf.LoadExtension{Num: bpf.ExtNetlinkAttr},
			bpf.RetA{},
		}), syscall.EOPNOTSUPP, "setsockopt: operation not supported: instruction 1: " +
			"the ancillary load SKF_AD_OFF+12 is not modelled by netsim's socket filter"},
		{"negation", []bpf.RawInstruction{{Op: 0x84}, {Op: 0x16}}, syscall.EOPNOTSUPP,
			"setsockopt: operation not supported: instruction 0: BPF_ALU|BPF_NEG is not modelled by netsim's socket filter"},
		{"SKF_NET_OFF", []bpf.RawInstruction{{Op: 0x30, K: 0xfff00000 + 9}, {Op: 0x16}}, syscall.EOPNOTSUPP,
			"setsockopt: operation not supported: instruction 0: a load relative to the network or " +
				"link-layer header (SKF_NET_OFF, SKF_LL_OFF) is not modelled by netsim's socket filter"},
	} {
		err := s.SetBPF(tc.prog)
		require.ErrorIs(t, err, tc.errno, tc.name)
		require.EqualError(t, err, tc.msg, tc.name)
	}
	s.mu.Lock()
	require.Nil(t, s.filter, "a refused program attaches nothing")
	s.mu.Unlock()
}

func mustAssembleInt(t *testing.T, prog []bpf.Instruction) []bpf.RawInstruction {
	t.Helper()
	raw, err := bpf.Assemble(prog)
	require.NoError(t, err)
	return raw
}

// A filter runs before the receive buffer's check, as sk_filter runs
// before netlink_attachskb: what it drops is no overrun, and a datagram
// it cuts is charged its whole truesize.
func TestFilterBeforeReceiveBuffer(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	listener, changer := NewSocket(n), NewSocket(n)
	defer listener.Close()
	defer changer.Close()
	require.NoError(t, listener.JoinGroup(uapi.RTNLGRP_LINK))
	require.NoError(t, listener.SetReadBuffer(1)) // 2304: one datagram at a time
	require.NoError(t, listener.SetBPF(mustAssembleInt(t, []bpf.Instruction{bpf.RetConstant{Val: 0}})))
	for mtu := uint32(1300); mtu < 1310; mtu++ {
		require.NoError(t, changer.Send(withLen(setMTU(mtu, netlink.Acknowledge))))
	}
	require.False(t, listener.Readable(), "dropped by the filter, not queued, no overrun")

	require.NoError(t, listener.SetBPF(mustAssembleInt(t, []bpf.Instruction{bpf.RetConstant{Val: 20}})))
	require.NoError(t, changer.Send(withLen(setMTU(1400, netlink.Acknowledge))))
	listener.mu.Lock()
	require.Len(t, listener.queue, 1)
	require.Len(t, listener.queue[0].b, 20, "cut to the filter's answer")
	full := len(changerNotification(t, n))
	require.Equal(t, truesize(full), listener.rmem, "charged as the whole skb")
	listener.mu.Unlock()
	_, err := listener.Receive()
	require.ErrorIs(t, err, syscall.EINVAL, "a message cut short, as syscall.ParseNetlinkMessage finds it")

	require.NoError(t, changer.Send(withLen(setMTU(1401, netlink.Acknowledge))))
	require.True(t, listener.Readable())
	require.NoError(t, listener.Send(withLen(setMTU(1402, netlink.Acknowledge))), "an overrun now, the queue being full")
	_, err = listener.Receive()
	require.ErrorIs(t, err, syscall.ENOBUFS)
}

// withLen sets m's length, as netlink.Conn does before Socket.Send.
func withLen(m netlink.Message) netlink.Message {
	m.Header.Length = uint32(nlmsgHdrLen + len(m.Data))
	return m
}

// changerNotification returns the bytes of lo's RTM_NEWLINK as a socket
// without a filter receives it.
func changerNotification(t *testing.T, n *rtnl.Net) []byte {
	t.Helper()
	plain := NewSocket(n)
	defer plain.Close()
	require.NoError(t, plain.Send(withLen(netlink.Message{Header: netlink.Header{
		Type: netlink.HeaderType(uapi.RTM_GETLINK), Flags: netlink.Request},
		Data: []byte{0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}})))
	b, err := plain.recvRaw()
	require.NoError(t, err)
	return b
}
