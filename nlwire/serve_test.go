package nlwire

import (
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// Test-only handlers, registered under a family no kernel uses (the
// kernel would send it to PF_UNSPEC; netsim's table looks the family up
// first), on the GET, NEW and DEL types of RTM_*TUNNEL.
const testFamily = 250

var (
	testGet = rt.MsgType(uapi.RTM_GETTUNNEL)
	testNew = rt.MsgType(uapi.RTM_NEWTUNNEL)
	testDel = rt.MsgType(uapi.RTM_DELTUNNEL)

	// testDump is what the test dumpit returns; testErr what the test doit
	// and dumpit fail with.
	testDump []netlink.Message
	testErr  error
)

func init() {
	serveTest := func(r *request) ([]netlink.Message, error) {
		if testErr != nil {
			return nil, testErr
		}
		return []netlink.Message{{Header: netlink.Header{Type: netlink.HeaderType(testNew)}, Data: r.body}}, nil
	}
	register(testFamily, testGet, handler{
		do: serveTest,
		dump: func(*request) (dumper, error) {
			if testErr != nil {
				return nil, testErr
			}
			return &listDumper{msgs: testDump}, nil
		},
	})
	register(testFamily, testNew, handler{do: func(*request) ([]netlink.Message, error) { return nil, testErr }})
	register(testFamily, testDel, handler{do: func(*request) ([]netlink.Message, error) { return nil, testErr }})
	registerNotify(testNew, func(n rtnl.Notification) ([]byte, uint32, error) {
		return []byte{testFamily, 0, 0, 0}, uapi.RTNLGRP_TUNNEL, nil
	})
}

func setTest(t *testing.T, dump []netlink.Message, err error) {
	testDump, testErr = dump, err
	t.Cleanup(func() { testDump, testErr = nil, nil })
}

func newTestSocket(t *testing.T) *Socket {
	t.Helper()
	k := rtnl.MustNewKernel(rtnl.After)
	s := NewSocket(k.InitNet())
	t.Cleanup(func() { s.Close() })
	return s
}

// queued returns the socket's queued datagrams, taking them.
func queued(t *testing.T, s *Socket) []string {
	t.Helper()
	var out []string
	for {
		s.mu.Lock()
		n := len(s.queue)
		s.mu.Unlock()
		if n == 0 {
			return out
		}
		b, err := s.recvRaw()
		require.NoError(t, err)
		out = append(out, hex.EncodeToString(b))
	}
}

// raw builds a message the way the real-kernel probes sent it.
func raw(l uint32, typ, flags uint16, seq uint32, body []byte) []byte {
	b := le.AppendUint32(nil, l)
	b = le.AppendUint16(b, typ)
	b = le.AppendUint16(b, flags)
	b = le.AppendUint32(b, seq)
	b = le.AppendUint32(b, 0)
	return append(b, body...)
}

func msg(typ, flags uint16, seq uint32, body []byte) []byte {
	b := raw(uint32(16+len(body)), typ, flags, seq, body)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// kernelHex turns a datagram recorded from Linux 6.18 (its port id
// written as PPPPPPPP) into the bytes expected from socket s.
func kernelHex(s *Socket, h string) string {
	p := hex.EncodeToString(le.AppendUint32(nil, s.PID()))
	return strings.ReplaceAll(strings.ReplaceAll(h, " ", ""), "PPPPPPPP", p)
}

const (
	req  = uapi.NLM_F_REQUEST
	ack  = uapi.NLM_F_ACK
	dump = uapi.NLM_F_DUMP
)

// The framing cases, each sent to a fresh NETLINK_ROUTE socket of Linux
// 6.18 in a new namespace (unshare -n) and recorded: netsim answers the
// same bytes, but for the port id.
func TestFramingAsLinux(t *testing.T) {
	ifinfo := make([]byte, 16)
	cases := []struct {
		name string
		opts []netlink.ConnOption
		send [][]byte
		want []string
	}{{
		name: "a length beyond the datagram ends it silently",
		send: [][]byte{raw(100, 18, req|ack, 1, nil)},
	}, {
		name: "a length below a header ends it silently",
		send: [][]byte{append(raw(8, 18, req|ack, 1, nil), make([]byte, 8)...)},
	}, {
		name: "fewer bytes than a header are ignored",
		send: [][]byte{make([]byte, 12)},
	}, {
		name: "the messages before a truncated one are served",
		send: [][]byte{append(msg(18, req|ack, 1, nil), raw(40, 18, req|ack, 2, nil)...)},
		want: []string{"24000000 0200 0001 01000000 PPPPPPPP 00000000 10000000120005000100000000000000"},
	}, {
		name: "a type above RTM_MAX is EOPNOTSUPP, echoed in full",
		send: [][]byte{msg(200, req|ack, 1, ifinfo)},
		want: []string{"34000000 0200 0000 01000000 PPPPPPPP a1ffffff 20000000c8000500010000000000000000000000000000000000000000000000"},
	}, {
		name: "an error is acknowledged without NLM_F_ACK",
		send: [][]byte{msg(200, req, 1, ifinfo)},
		want: []string{"34000000 0200 0000 01000000 PPPPPPPP a1ffffff 20000000c8000100010000000000000000000000000000000000000000000000"},
	}, {
		name: "a type without a handler is EOPNOTSUPP",
		send: [][]byte{msg(123, req, 1, ifinfo)},
		want: []string{"34000000 0200 0000 01000000 PPPPPPPP a1ffffff 200000007b000100010000000000000000000000000000000000000000000000"},
	}, {
		name: "the type is checked before the payload",
		send: [][]byte{msg(200, req, 1, nil)},
		want: []string{"24000000 0200 0000 01000000 PPPPPPPP a1ffffff 10000000c80001000100000000000000"},
	}, {
		name: "a message that is no request is acked, not served",
		send: [][]byte{msg(18, ack, 1, ifinfo)},
		want: []string{"24000000 0200 0001 01000000 PPPPPPPP 00000000 20000000120004000100000000000000"},
	}, {
		name: "a message that is no request and wants no ack gets nothing",
		send: [][]byte{msg(18, 0, 1, ifinfo)},
	}, {
		name: "a control message is acked, not served",
		send: [][]byte{msg(5, req|ack, 1, ifinfo)},
		want: []string{"24000000 0200 0001 01000000 PPPPPPPP 00000000 20000000050005000100000000000000"},
	}, {
		name: "a request without an rtgenmsg is acked, not served",
		send: [][]byte{msg(18, req|ack, 1, nil)},
		want: []string{"24000000 0200 0001 01000000 PPPPPPPP 00000000 10000000120005000100000000000000"},
	}, {
		name: "a success ack has no TLVs with ExtendedAcknowledge",
		opts: []netlink.ConnOption{netlink.ExtendedAcknowledge},
		send: [][]byte{msg(18, req|ack, 1, nil)},
		want: []string{"24000000 0200 0001 01000000 PPPPPPPP 00000000 10000000120005000100000000000000"},
	}, {
		name: "an unaligned length: the echo is padded, the next message starts aligned",
		send: [][]byte{append(append(raw(17, 200, req, 7, nil), 0, 0, 0, 0), msg(200, req, 8, ifinfo)...)},
		want: []string{
			"28000000 0200 0000 07000000 PPPPPPPP a1ffffff 11000000c8000100070000000000000000000000",
			"34000000 0200 0000 08000000 PPPPPPPP a1ffffff 20000000c8000100080000000000000000000000000000000000000000000000",
		},
	}, {
		name: "CapAcknowledge echoes only the header of an error",
		opts: []netlink.ConnOption{netlink.CapAcknowledge, netlink.ExtendedAcknowledge},
		send: [][]byte{msg(200, req|ack, 1, ifinfo)},
		want: []string{"24000000 0200 0001 01000000 PPPPPPPP a1ffffff 20000000c80005000100000000000000"},
	}, {
		name: "a bulk delete of a doit without bulk support",
		opts: []netlink.ConnOption{netlink.ExtendedAcknowledge},
		send: [][]byte{msg(17, req|ack|0x200, 1, append([]byte{uapi.AF_BRIDGE}, ifinfo[1:]...))},
		want: []string{"58000000 0200 0002 01000000 PPPPPPPP a1ffffff 2000000011000502010000000000000007000000000000000000000000000000" +
			"2100 0100 42756c6b2064656c657465206973206e6f7420737570706f7274656400 000000"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSocket(t)
			for _, o := range c.opts {
				require.NoError(t, s.SetOption(o, true))
			}
			for _, b := range c.send {
				require.NoError(t, s.sendRaw(b))
			}
			var want []string
			for _, w := range c.want {
				want = append(want, kernelHex(s, w))
			}
			require.Equal(t, want, queued(t, s))
		})
	}
}

// An error's extack: the message NUL-terminated, and the offset of the
// attribute it is against, which Linux sends only for errors.
func TestExtendedAck(t *testing.T) {
	body := []byte{testFamily, 0, 0, 0, 8, 0, 4, 0, 1, 2, 3, 4}
	m := msg(uint16(testNew), req|ack, 9, body)
	setTest(t, nil, badAttr(errno.New(syscall.ERANGE, "Attribute failed policy validation"), 20))

	s := newTestSocket(t)
	require.NoError(t, s.sendRaw(m))
	plain := queued(t, s)
	require.Equal(t, []string{kernelHex(s, "30000000 0200 0000 09000000 PPPPPPPP deffffff "+hex.EncodeToString(m))}, plain)

	require.NoError(t, s.SetOption(netlink.ExtendedAcknowledge, true))
	require.NoError(t, s.sendRaw(m))
	require.Equal(t, []string{kernelHex(s, "60000000 0200 0002 09000000 PPPPPPPP deffffff "+hex.EncodeToString(m)+
		"2700 0100 417474726962757465206661696c656420706f6c6963792076616c69646174696f6e00 00"+
		"0800 0200 14000000")}, queued(t, s))

	// Through mdlayher's Conn: the error, its message and offset.
	c := netlink.NewConn(s, s.PID())
	_, err := c.Execute(netlink.Message{Header: netlink.Header{Type: netlink.HeaderType(testNew), Flags: req | ack}, Data: body})
	var oe *netlink.OpError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "Attribute failed policy validation", oe.Message)
	require.Equal(t, 20, oe.Offset)
	require.ErrorIs(t, err, syscall.ERANGE)

	// An offset outside the request is not reported (netlink_ack_tlv_fill's
	// bounds check).
	setTest(t, nil, badAttr(errno.New(syscall.EINVAL, "x"), 400))
	require.NoError(t, s.sendRaw(m))
	got := queued(t, s)
	require.Len(t, got, 1)
	require.NotContains(t, got[0], "08000200")
}

// A message whose kernel error has no extack (rtnl.HasExtack) sends none.
func TestExtackOnlyWhereLinuxSetsOne(t *testing.T) {
	setTest(t, nil, errno.New(syscall.ENOENT, "Nexthop id does not exist"))
	s := newTestSocket(t)
	require.NoError(t, s.SetOption(netlink.ExtendedAcknowledge, true))
	m := msg(uint16(testNew), req, 3, []byte{testFamily, 0, 0, 0})
	require.NoError(t, s.sendRaw(m))
	require.Equal(t, []string{kernelHex(s, "28000000 0200 0000 03000000 PPPPPPPP feffffff "+hex.EncodeToString(m))}, queued(t, s))
}

// A GET's answer comes before its ack, with the request's sequence number
// and the socket's port id.
func TestGetReplyThenAck(t *testing.T) {
	s := newTestSocket(t)
	m := msg(uint16(testGet), req|ack, 5, []byte{testFamily, 1, 2, 3})
	require.NoError(t, s.sendRaw(m))
	require.Equal(t, []string{
		kernelHex(s, "14000000 7800 0000 05000000 PPPPPPPP fa010203"),
		kernelHex(s, "24000000 0200 0001 05000000 PPPPPPPP 00000000 14000000 7a00 0500 05000000 00000000"),
	}, queued(t, s))
}

func testMsgs(n, size int) []netlink.Message {
	var ms []netlink.Message
	for i := range n {
		d := make([]byte, size-16)
		d[0] = byte(i)
		ms = append(ms, netlink.Message{Header: netlink.Header{Type: netlink.HeaderType(testNew)}, Data: d})
	}
	return ms
}

// A dump is cut into datagrams as Linux cuts one for mdlayher/netlink's
// reader: the first at NLMSG_GOODSIZE (3776 bytes), the next at the 4096
// bytes of the reader's buffer; NLMSG_DONE ends the last. Recorded from
// Linux 6.18 with 251 addresses of 76 bytes: 3724, 4028, 4028, ... bytes.
// A dump never gets an ack, NLM_F_ACK or not.
func TestDumpBatches(t *testing.T) {
	setTest(t, testMsgs(251, 76), nil)
	s := newTestSocket(t)
	require.NoError(t, s.sendRaw(msg(uint16(testGet), req|dump|ack, 1, []byte{testFamily})))
	var sizes []int
	var types []netlink.HeaderType
	for {
		ms, err := s.Receive()
		require.NoError(t, err)
		n := 0
		for _, m := range ms {
			n += int(m.Header.Length)
			require.Equal(t, uint32(1), m.Header.Sequence)
			require.Equal(t, s.PID(), m.Header.PID)
			require.NotZero(t, m.Header.Flags&netlink.Multi)
			types = append(types, m.Header.Type)
		}
		sizes = append(sizes, n)
		if ms[len(ms)-1].Header.Type == netlink.Done {
			require.Equal(t, []byte{0, 0, 0, 0}, ms[len(ms)-1].Data)
			break
		}
	}
	require.Equal(t, []int{3724, 4028, 4028, 4028, 43*76 + 20}, sizes)
	require.Len(t, types, 252)
	require.Empty(t, queued(t, s))

	// mdlayher's Conn reads the whole dump.
	c := netlink.NewConn(s, s.PID())
	got, err := c.Execute(netlink.Message{Header: netlink.Header{Type: netlink.HeaderType(testGet), Flags: req | dump}, Data: []byte{testFamily}})
	require.NoError(t, err)
	require.Len(t, got, 251)
}

// The dumps Linux registers with RTNL_FLAG_DUMP_SPLIT_NLM_DONE send DONE
// apart: recorded from Linux 6.18, a link dump of lo is 1468 bytes, then 20.
func TestDumpSplitDone(t *testing.T) {
	require.True(t, splitDone(handlerKey{uapi.AF_UNSPEC, rt.RTMGetLink}))
	require.True(t, splitDone(handlerKey{uapi.AF_INET, rt.RTMGetAddr}))
	require.False(t, splitDone(handlerKey{uapi.AF_INET6, rt.RTMGetAddr}))
	require.True(t, splitDone(handlerKey{uapi.AF_INET6, rt.RTMGetRoute}))
	require.False(t, splitDone(handlerKey{uapi.AF_UNSPEC, rt.RTMGetRule}))
	require.False(t, splitDone(handlerKey{uapi.AF_UNSPEC, rt.RTMGetNexthop}))
	// rtnl_dump_all sends DONE apart by its return, without the flag.
	require.True(t, splitDone(handlerKey{uapi.AF_UNSPEC, rt.RTMGetRoute}))
	require.False(t, splitFlag(handlerKey{uapi.AF_UNSPEC, rt.RTMGetRoute}))
	require.False(t, splitFlag(handlerKey{uapi.AF_UNSPEC, rt.RTMGetAddr}))
	require.True(t, splitFlag(handlerKey{uapi.AF_INET, rt.RTMGetRoute}))
	require.True(t, splitFlag(handlerKey{uapi.AF_UNSPEC, rt.RTMGetLink}))

	s := newTestSocket(t)
	ds := &dumpState{split: true, d: &listDumper{msgs: []netlink.Message{{Header: netlink.Header{Type: 16}, Data: make([]byte, 1452)}}}}
	fillOnePart(t, s, ds)
	got := queued(t, s)
	require.Len(t, got, 2)
	require.Len(t, got[0], 2*1468)
	require.Equal(t, kernelHex(s, "14000000 0300 0200 00000000 PPPPPPPP 00000000"), got[1])
}

// A dump that fails reports the error in NLMSG_DONE, with the extack
// message under ExtendedAcknowledge. Recorded from Linux 6.18: a strict
// link dump with a bad header.
func TestDumpError(t *testing.T) {
	setTest(t, nil, errno.New(syscall.EINVAL, "Invalid header for link dump"))
	s := newTestSocket(t)
	require.NoError(t, s.sendRaw(msg(uint16(testGet), req|dump, 1, []byte{testFamily})))
	require.Equal(t, []string{kernelHex(s, "14000000 0300 0200 01000000 PPPPPPPP eaffffff")}, queued(t, s))
	require.NoError(t, s.SetOption(netlink.ExtendedAcknowledge, true))
	require.NoError(t, s.sendRaw(msg(uint16(testGet), req|dump, 1, []byte{testFamily})))
	require.Equal(t, []string{kernelHex(s, "38000000 0300 0202 01000000 PPPPPPPP eaffffff"+
		"21000100496e76616c69642068656164657220666f72206c696e6b2064756d7000000000")}, queued(t, s))
}

// A second dump while one is in progress is EBUSY; the first continues.
// Recorded from Linux 6.18: dump, EBUSY ack, then the first dump's DONE.
func TestDumpBusy(t *testing.T) {
	setTest(t, testMsgs(60, 76), nil)
	s := newTestSocket(t)
	require.NoError(t, s.sendRaw(append(msg(uint16(testGet), req|dump, 1, []byte{testFamily}),
		msg(uint16(testGet), req|dump|ack, 2, []byte{testFamily})...)))
	got := queued(t, s)
	require.Len(t, got, 3)
	require.Equal(t, kernelHex(s, "28000000 0200 0000 02000000 PPPPPPPP f0ffffff 11000000 7a00 0503 02000000 00000000 fa000000"), got[1])
	require.True(t, strings.HasSuffix(got[2], "140000000300020001000000"+hex.EncodeToString(le.AppendUint32(nil, s.PID()))+"00000000"))
}

// Sending nothing is ENODATA; more than the send buffer allows, EMSGSIZE;
// a marshalling error is mdlayher's own.
func TestSendErrors(t *testing.T) {
	s := newTestSocket(t)
	err := s.SendMessages(nil)
	require.ErrorIs(t, err, syscall.ENODATA)
	require.NoError(t, s.SetWriteBuffer(1000)) // SOCK_MIN_SNDBUF, 4608
	err = s.sendRaw(make([]byte, 4608-31))
	require.ErrorIs(t, err, syscall.EMSGSIZE)
	require.Error(t, s.Send(netlink.Message{Header: netlink.Header{Length: 17}}))
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.sendRaw(make([]byte, 16)), syscall.EBADF)
	var se *os.SyscallError
	require.ErrorAs(t, s.sendRaw(make([]byte, 16)), &se)
}

// The requests Linux serves and netsim does not model are EOPNOTSUPP with
// a message; a doit the kernel does not have for them is a bare EOPNOTSUPP.
func TestUnmodelled(t *testing.T) {
	s := newTestSocket(t)
	require.NoError(t, s.SetOption(netlink.ExtendedAcknowledge, true))
	c := netlink.NewConn(s, s.PID())
	for _, tc := range []struct {
		typ   rt.MsgType
		flags netlink.HeaderFlags
		fam   byte
		msg   string
	}{
		{uapi.RTM_GETNEIGHTBL, req | dump, uapi.AF_INET, "Neighbour table parameters are not modelled by netsim"},
		{rt.RTMNewNeigh, req | ack, uapi.AF_BRIDGE, "The bridge forwarding database is not modelled by netsim"},
		{uapi.RTM_GETQDISC, req | dump, 0, "Traffic control is not modelled by netsim"},
		{uapi.RTM_GETNETCONF, req | ack, 0, ""}, // PF_UNSPEC has only rtnl_dump_all
		{uapi.RTM_GETNETCONF, req | ack, uapi.AF_INET, "Netconf is not modelled by netsim"},
		{rt.RTMGetLink, req | dump, uapi.AF_BRIDGE, "Bridge port settings (AF_BRIDGE) are not modelled by netsim"},
		{uapi.RTM_GETMULTICAST, req | dump, 0, ""},
		{uapi.RTM_NEWPREFIX, req | ack, 0, ""}, // a notification only
	} {
		t.Run(fmt.Sprint(tc.typ, tc.fam), func(t *testing.T) {
			_, err := c.Execute(netlink.Message{Header: netlink.Header{Type: netlink.HeaderType(tc.typ), Flags: tc.flags},
				Data: []byte{tc.fam, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}})
			require.ErrorIs(t, err, syscall.EOPNOTSUPP)
			var oe *netlink.OpError
			require.ErrorAs(t, err, &oe)
			require.Equal(t, tc.msg, oe.Message)
		})
	}
}

// fillOnePart makes ds the socket's dump in progress and fills its next
// datagram, as netlink_dump does for a reader.
func fillOnePart(t *testing.T, s *Socket, ds *dumpState) {
	t.Helper()
	s.mu.Lock()
	s.dump = ds
	s.mu.Unlock()
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	require.True(t, s.dumpOnce(ds))
}
