package nlwire

import (
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
)

func TestAttrsLeftover(t *testing.T) {
	hdr := make([]byte, rtmsgLen)
	oif := []byte{8, 0, uapi.RTA_OIF, 0, 3, 0, 0, 0}
	for _, tc := range []struct {
		name string
		body []byte
		want bool
	}{
		{"no attributes", hdr, false},
		{"whole attributes", append(append([]byte{}, hdr...), oif...), false},
		{"a header cut short", hdr[:4], false},
		{"the last attribute cut", append(append([]byte{}, hdr...), oif[:4]...), true},
		{"an attribute longer than the rest", append(append([]byte{}, hdr...), 12, 0, 4, 0, 3, 0, 0, 0), true},
		{"an attribute shorter than its header", append(append([]byte{}, hdr...), 2, 0, 4, 0), true},
	} {
		require.Equal(t, tc.want, attrsLeftover(tc.body, rtmsgLen), tc.name)
	}
}

// A request whose attributes leave bytes over fails with the parse's
// warning as its extack message, unless the error has one of its own.
func TestLeftoverMessage(t *testing.T) {
	cut := append(make([]byte, rtmsgLen), 8, 0, uapi.RTA_OIF, 0)
	r := &request{hdr: netlink.Header{Type: netlink.HeaderType(rt.RTMNewRoute)}, body: cut}
	err := withLeftoverMsg(r, errno.New(syscall.ENODEV, ""))
	require.Equal(t, syscall.ENODEV, errno.Of(err))
	require.Equal(t, msgLeftover, extackMsg(err))
	own := errno.New(syscall.EINVAL, "Invalid prefix for given prefix length")
	require.Equal(t, own, withLeftoverMsg(r, own))
	require.NoError(t, withLeftoverMsg(r, nil))
	whole := &request{hdr: r.hdr, body: make([]byte, rtmsgLen)}
	require.Empty(t, extackMsg(withLeftoverMsg(whole, errno.New(syscall.ENODEV, ""))))
	at := withLeftoverMsg(r, badAttr(errno.New(syscall.ENODEV, ""), 28))
	require.Equal(t, 28, errOffset(at), "the attribute the error names stays named")
	require.Equal(t, msgLeftover, extackMsg(at))
	require.Equal(t, msgLeftover, leftoverWarning(r), "a success's ack warns")
	require.Empty(t, leftoverWarning(whole))
}
