package nlwire

import (
	"encoding/hex"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
)

// A message that does not fit even in an empty datagram ends the dump:
// the messages before it go out, then NLMSG_DONE with -EMSGSIZE
// (netlink_dump: the dumpit's -EMSGSIZE with an empty skb is the dump's
// error), also for rtnl_dump_all, which sends NLMSG_DONE apart; a dumpit
// registered with RTNL_FLAG_DUMP_SPLIT_NLM_DONE ends silently instead
// (rtnl_dumpit returns the empty skb's length, 0, which netlink_dump takes
// for the end), as Linux 6.18 does with an IPv6 route whose RTA_MULTIPATH
// holds 2 500 gateways: `ip -6 route show` lists the routes before it and
// exits 0.
//
// Kernel: netlink_dump (net/netlink/af_netlink.c), rtnl_dumpit
// (net/core/rtnetlink.c).
func TestDumpMessageTooBig(t *testing.T) {
	msgs := []netlink.Message{
		{Header: netlink.Header{Type: netlink.HeaderType(testNew)}, Data: make([]byte, 100)},
		{Header: netlink.Header{Type: netlink.HeaderType(testNew)}, Data: make([]byte, maxDumpAlloc)},
		{Header: netlink.Header{Type: netlink.HeaderType(testNew)}, Data: make([]byte, 100)},
	}
	for _, c := range []struct{ split, quiet bool }{{false, false}, {true, false}, {true, true}} {
		s := newTestSocket(t)
		ds := &dumpState{split: c.split, quietEnd: c.quiet, d: &listDumper{msgs: msgs}, seq: 9}
		fillOnePart(t, s, ds)
		got := queued(t, s)
		require.Len(t, got, 2)
		require.Len(t, got[0], 2*(16+100), "the message before goes out alone")
		done := "14000000 0300 0200 09000000 PPPPPPPP a6ffffff" // -EMSGSIZE (90)
		if c.quiet {
			done = "14000000 0300 0200 09000000 PPPPPPPP 00000000"
		}
		require.Equal(t, kernelHex(s, done), got[1], "%+v", c)
		s.mu.Lock()
		require.Nil(t, s.dump, "the dump is over")
		s.mu.Unlock()
	}
}

// nl_dump_check_consistent flags the first message of a datagram filled
// after the generation moved, and NLMSG_DONE likewise when the generation
// moved since the last check; a generation of 0 checks nothing.
func TestDumpCheckConsistent(t *testing.T) {
	ds := &dumpState{}
	msg := func(p *part) { require.NoError(t, p.put(testNew, 0, []byte{1, 2, 3, 4})) }
	flags := func(b []byte) uint16 { return le.Uint16(b[6:]) }

	p := part{room: 4096, cb: ds}
	msg(&p)
	p.checkConsistent(0)
	require.Zero(t, flags(p.b)&uapi.NLM_F_DUMP_INTR)

	p = part{room: 4096, cb: ds}
	msg(&p)
	p.checkConsistent(5) // nothing to compare with
	require.Zero(t, flags(p.b)&uapi.NLM_F_DUMP_INTR)

	p = part{room: 4096, cb: ds}
	msg(&p)
	msg(&p)
	p.checkConsistent(6)
	require.Equal(t, uint16(uapi.NLM_F_DUMP_INTR|uapi.NLM_F_MULTI), flags(p.b), "the first message")
	require.Equal(t, uint16(uapi.NLM_F_MULTI), flags(p.b[20:]))

	s := newTestSocket(t)
	p.setGen(7) // a part with no message: no check, and DONE tells
	b := s.appendDone(nil, ds, false)
	require.Equal(t, uint16(uapi.NLM_F_DUMP_INTR|uapi.NLM_F_MULTI), flags(b), hex.EncodeToString(b))
}
