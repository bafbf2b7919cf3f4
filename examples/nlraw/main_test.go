package main

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// TestLinksAndAddAddr runs the tool's functions against a simulated
// kernel: a dump, an address added, and the kernel's refusals as errors.
func TestLinksAndAddAddr(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	h := n.Handle(k.World().NewTask("setup"))
	require.NoError(t, h.LinkAdd(netdev.Veth{Name: "veth0", Peer: "veth1", Attrs: netdev.Attrs{MTU: 1400}}))

	c, err := nlwire.Dial(n)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetOption(netlink.ExtendedAcknowledge, true))

	links, err := Links(c)
	require.NoError(t, err)
	require.Equal(t, []Link{{1, "lo", 65536}, {2, "veth1", 1500}, {3, "veth0", 1400}}, links)

	p := netip.MustParsePrefix("10.0.0.1/24")
	require.NoError(t, AddAddr(c, 3, p))
	addrs, err := h.AddrList("veth0", rt.FamilyInet)
	require.NoError(t, err)
	require.Len(t, addrs, 1)
	require.Equal(t, p, addrs[0].Addr.Prefix)

	// The kernel's errors come back as *netlink.OpError, errno and extack.
	err = AddAddr(c, 3, p)
	require.ErrorIs(t, err, syscall.EEXIST)
	var oe *netlink.OpError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "ipv4: Address already assigned", oe.Message)
	require.ErrorIs(t, AddAddr(c, 99, p), syscall.ENODEV)
}
