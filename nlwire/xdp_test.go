package nlwire_test

import (
	"errors"
	"syscall"
	"testing"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/rtnl"
)

// XDP stays refused by name: netsim runs no BPF programs on devices. An
// attach as jsimonetti/rtnetlink's own XDP tests make it (IFLA_XDP with
// IFLA_XDP_FD, IFLA_XDP_EXPECTED_FD and IFLA_XDP_FLAGS on RTM_NEWLINK for
// lo, through a Strict socket) is EOPNOTSUPP with the attribute named and
// its offset, and changes nothing: lo's dump still says
// XDP_ATTACHED_NONE, with no program id.
func TestXDPRefusedByName(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	conn, err := nlwire.DialRTNetlinkConfig(k.InitNet(), &netlink.Config{Strict: true})
	require.NoError(t, err)
	defer conn.Close()

	err = conn.Link.Set(&rtnetlink.LinkMessage{Index: 1, Attributes: &rtnetlink.LinkAttributes{
		MTU: 1400,
		XDP: &rtnetlink.LinkXDP{FD: 7, ExpectedFD: -1, Flags: 1 << 1}, // XDP_FLAGS_SKB_MODE
	}})
	require.ErrorIs(t, err, syscall.EOPNOTSUPP)
	var oe *netlink.OpError
	require.True(t, errors.As(err, &oe))
	require.Equal(t, "IFLA_XDP is not modelled by netsim", oe.Message)
	require.NotZero(t, oe.Offset, "the offset of IFLA_XDP in the request")

	lo, err := conn.Link.Get(1)
	require.NoError(t, err)
	require.Equal(t, uint32(65536), lo.Attributes.MTU, "the refused request changed nothing")
	require.NotNil(t, lo.Attributes.XDP)
	require.Equal(t, uint8(0), lo.Attributes.XDP.Attached) // XDP_ATTACHED_NONE
	require.Zero(t, lo.Attributes.XDP.ProgID)
}
