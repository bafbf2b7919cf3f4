package nlwire_test

import (
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
	"github.com/netsimlab/netsim/rtnl"
)

// TestResilientNestInMultipathGroup: an NHA_RES_GROUP whose nest fails
// its policy (a 1-byte NHA_RES_GROUP_BUCKETS) is, in a multipath group,
// an attribute the group may not have; in a resilient group, the policy's
// error. Linux 6.18 answered a raw RTM_NEWNEXTHOP of each (AF_UNSPEC,
// NHA_ID 20, NHA_GROUP {1}) with EINVAL and these messages.
func TestResilientNestInMultipathGroup(t *testing.T) {
	r := newLimitsRig(t)
	require.NoError(t, r.a.SetOption(netlink.ExtendedAcknowledge, true))
	require.NoError(t, r.h.NexthopAdd(rtnl.NexthopRequest{ID: 1, Dev: "veth0"}))
	bad := W.Nest(uapi.NHA_RES_GROUP, W.Attr{Type: uapi.NHA_RES_GROUP_BUCKETS, Data: []byte{1}})
	for _, c := range []struct {
		attrs []W.Attr
		msg   string
	}{
		{[]W.Attr{W.U32(uapi.NHA_ID, 20), groupOf(1), bad}, "No other attributes can be set in nexthop groups"},
		{[]W.Attr{W.U32(uapi.NHA_ID, 20), W.U16(uapi.NHA_GROUP_TYPE, 1), groupOf(1), bad}, "invalid attribute length"},
	} {
		got := r.do(nh(uapi.RTM_NEWNEXTHOP, W.Create, uapi.AF_UNSPEC, c.attrs...))
		require.Len(t, got, 1)
		require.Equal(t, syscall.EINVAL, errnoOf(t, got[0]))
		require.Contains(t, W.Canon(got[0], func(uint32) string { return "p" }), c.msg)
	}
}
