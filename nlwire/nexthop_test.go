package nlwire

import (
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/rt"
)

// Nexthop requests against what Linux 6.18 answered to the same ones.
func TestNexthopsAsTheKernelAnswers(t *testing.T) {
	differ := map[string]kernelDifference{
		"encap":        {syscall.EOPNOTSUPP, "Nexthop lwt encapsulation is not modelled"},
		"get op flags": {syscall.EOPNOTSUPP, "Nexthop group statistics are not modelled"},
	}
	// A bucket's idle time is the time since a flow last used it, which
	// the kernel counts in real time.
	normalise := func(m *netlink.Message) {
		if rt.MsgType(m.Header.Type) == rt.RTMNewNexthopBucket {
			m.Data = append([]byte(nil), m.Data...)
			clear(m.Data[len(m.Data)-8:])
		}
	}
	replayKernelReplies(t, "nexthop1.txt", nil, differ, nil, normalise)
	replayKernelReplies(t, "nexthop2.txt", nil, differ, nil, normalise)
	// NLM_F_CREATE, NLM_F_REPLACE and the order of a replace's checks:
	// the new nexthop's (device, gateway, members) before the id's
	// ENOENT, which precedes a new resilient group's bucket count.
	replayKernelReplies(t, "nexthop3.txt", nil, differ, nil, normalise)
}
