package nlwire

import (
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rtnl"
)

// testNotifyErr is what the test notifier of testDel fails with.
var testNotifyErr error

func init() {
	registerNotify(testDel, func(rtnl.Notification) ([]byte, uint32, error) {
		return nil, uapi.RTNLGRP_TUNNEL, testNotifyErr
	})
}

// TestNotifyError checks a notification whose message cannot be built:
// nobody gets a message; each member of its group gets the error on its
// next read (an ENOBUFS not if it set NoENOBUFS), others nothing, as
// rtnl_set_sk_err → netlink_set_err reports a failed fill.
func TestNotifyError(t *testing.T) {
	t.Cleanup(func() { testNotifyErr = nil })
	for _, en := range []syscall.Errno{syscall.EMSGSIZE, syscall.ENOBUFS} {
		testNotifyErr = errno.New(en, "")
		k := rtnl.MustNewKernel(rtnl.After)
		joined, quiet, other := NewSocket(k.InitNet()), NewSocket(k.InitNet()), NewSocket(k.InitNet())
		require.NoError(t, joined.JoinGroup(uapi.RTNLGRP_TUNNEL))
		require.NoError(t, quiet.JoinGroup(uapi.RTNLGRP_TUNNEL))
		require.NoError(t, quiet.SetOption(netlink.NoENOBUFS, true))
		joined.ns.deliver(rtnl.Notification{Type: testDel})
		_, err := joined.recvRaw()
		require.ErrorIs(t, err, en)
		for _, s := range []*Socket{quiet, other} {
			s.mu.Lock()
			want := syscall.Errno(0)
			if s == quiet && en != syscall.ENOBUFS {
				want = en
			}
			require.Equal(t, want, s.sockErr)
			require.Empty(t, s.queue)
			s.mu.Unlock()
		}
		for _, s := range []*Socket{joined, quiet, other} {
			s.Close()
		}
	}
}
