package main

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

var cfg = Config{
	Name: "veth0", Peer: "veth1",
	Addr:    netip.MustParsePrefix("10.0.0.1/24"),
	Route:   netip.MustParsePrefix("192.0.2.0/24"),
	Gateway: netip.MustParseAddr("10.0.0.2"),
}

// TestEnsure runs the agent against a simulated kernel: no root, no
// machine touched. What it configured is checked through the simulated
// kernel's own API, and the link notifications through a second socket.
func TestEnsure(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	conn, err := nlwire.DialRTNetlink(n)
	require.NoError(t, err)
	defer conn.Close()
	watch, err := nlwire.DialRTNetlink(n)
	require.NoError(t, err)
	defer watch.Close()
	require.NoError(t, Watch(watch))

	idx, err := Ensure(conn, cfg)
	require.NoError(t, err)

	h := n.Handle(k.World().NewTask("check"))
	l, err := h.LinkByName("veth0")
	require.NoError(t, err)
	require.EqualValues(t, l.Index, idx)
	addrs, err := h.AddrList("veth0", rt.FamilyInet)
	require.NoError(t, err)
	require.Len(t, addrs, 1)
	require.Equal(t, cfg.Addr, addrs[0].Addr.Prefix)
	routes, err := h.RouteList(rt.FamilyInet, 0)
	require.NoError(t, err)
	var found bool
	for _, r := range routes {
		if r.Dst == cfg.Route {
			found = true
			require.Equal(t, cfg.Gateway, r.Gateway)
		}
	}
	require.True(t, found, "no route to %s in %v", cfg.Route, routes)

	// The notifications are queued by the time each request is acked:
	// read until veth0's coming up.
	var events []string
	for i := 0; i < 20 && !slices.Contains(events, "veth0 up"); i++ {
		ev, err := LinkEvents(watch)
		require.NoError(t, err)
		events = append(events, ev...)
	}
	require.Equal(t, "veth1 down", events[0], "the peer registers first, down")
	require.Contains(t, events, "veth0 up")

	// A second run finds everything done: same ifindex, no error.
	again, err := Ensure(conn, cfg)
	require.NoError(t, err)
	require.Equal(t, idx, again)
}
