package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// A veth pair's link notifications as Linux 6.18 sends them: the peer is
// announced before the two are tied (IFLA_LINK 0), the device after; a
// device coming up whose carrier waits for linkwatch still has the
// operstate it had down; deleting one end unties both before they go,
// and their RTM_DELLINK shows the noop qdisc dev_shutdown left.
func TestNotifyVethLinks(t *testing.T) {
	r := newRig(t, rtnl.After)
	var got []rtnl.Notification
	cancel := r.k.InitNet().Subscribe(func(m rtnl.Notification) {
		if m.Link != nil {
			got = append(got, m)
		}
	})
	defer cancel()
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	require.Len(t, got, 2)
	require.Equal(t, "v1", got[0].Link.Name)
	require.Zero(t, got[0].Link.LinkIndex, "the peer is announced untied")
	require.Equal(t, "v0", got[1].Link.Name)
	require.Equal(t, got[0].Link.Index, got[1].Link.LinkIndex)
	v1, err := r.h.LinkByName("v1")
	require.NoError(t, err)
	require.Equal(t, got[1].Link.Index, v1.LinkIndex, "tied once both are registered")

	got = nil
	r.ok(r.h.LinkSetUp("v1"))
	r.ok(r.h.LinkSetUp("v0"))
	require.Len(t, got, 4)
	up := got[1]
	require.Equal(t, "v0", up.Link.Name)
	require.Equal(t, uint32(netdev.FlagUp), up.Change)
	require.Equal(t, netdev.OperLowerLayerDown, up.Link.OperState, "linkwatch has not run yet")
	require.NotZero(t, up.Link.Flags&netdev.FlagLowerUp, "veth_open turned the carrier on")
	require.Equal(t, netdev.OperUp, got[2].Link.OperState)
	require.Equal(t, netdev.OperUp, got[3].Link.OperState)

	got = nil
	r.ok(r.h.LinkDel("v0"))
	var dels int
	for _, m := range got {
		require.Zero(t, m.Link.LinkIndex, "%v of %s: untied by veth_dellink", m.Type, m.Link.Name)
		if m.Type == rt.RTMDelLink {
			dels++
			require.Equal(t, "noop", m.Link.Qdisc)
		}
	}
	require.Equal(t, 2, dels)
}

// SettleFor runs the deferred work due within its time and no later: an
// address's finite lifetime outlasts a short wait, not a Settle.
func TestSettleForKeepsLaterWork(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d0"}))
	r.ok(r.h.LinkSetUp("d0"))
	p := netip.MustParsePrefix("10.1.1.1/24")
	r.ok(r.h.AddrAddWith("d0", netdev.Addr{Prefix: p, ValidLft: 20, PreferredLft: 10}))
	has := func() bool {
		as, err := r.h.AddrList("d0", rt.FamilyInet)
		require.NoError(t, err)
		for _, a := range as {
			if a.Prefix == p {
				return true
			}
		}
		return false
	}
	start := r.t.Now()
	r.k.SettleFor(r.t, time.Second)
	require.Equal(t, start.Add(time.Second), r.t.Now())
	require.True(t, has(), "the address outlasts a second")
	r.k.SettleFor(r.t, 30*time.Second)
	require.False(t, has(), "and not its valid lifetime")
}

// A kind's changelink announces the device when the request ends
// (DO_SETLINK_NOTIFY → netdev_state_change), which sends RTM_NEWLINK only
// for a device that is up: on Linux 6.18, `ip monitor link` shows br0
// after `ip link set br0 type bridge hello_time 300` on an up bridge, and
// nothing for the same on a down one. A vlan request without
// IFLA_INFO_DATA is refused by vlan_validate, before the device is looked
// up.
func TestNotifyChangelink(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Bridge{Name: "br0"}))
	r.ok(r.h.LinkSetUp("br0"))
	var got []rtnl.Notification
	cancel := r.k.InitNet().Subscribe(func(m rtnl.Notification) {
		if m.Link != nil {
			got = append(got, m)
		}
	})
	defer cancel()
	r.ok(r.h.LinkSetBridge("br0", netdev.BridgeSettings{HelloTime: new(uint32(300))}))
	require.Len(t, got, 1)
	require.Equal(t, rt.RTMNewLink, got[0].Type)
	require.Equal(t, "br0", got[0].Link.Name)
	require.Zero(t, got[0].Change)

	r.ok(r.h.LinkSetDown("br0"))
	got = nil
	r.ok(r.h.LinkSetBridge("br0", netdev.BridgeSettings{HelloTime: new(uint32(400))}))
	require.Empty(t, got, "a device that is down is not announced")

	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Name: "nodev", Change: rtnl.LinkChange{VlanNoData: true}}), syscall.EINVAL, "8021q: VLAN properties not specified")
}
