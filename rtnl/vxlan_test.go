package rtnl_test

import (
	"fmt"
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// vx is the IFLA_INFO_DATA of a vxlan with VNI id and the settings set
// makes.
func vx(id uint32, set func(s *netdev.VxlanSettings)) netdev.VxlanSettings {
	s := netdev.VxlanSettings{Data: true, ID: &id}
	if set != nil {
		set(&s)
	}
	return s
}

func addrPtr(s string) *netip.Addr { a := netip.MustParseAddr(s); return &a }

// TestVxlanHandle drives vxlans through the Handle API: the spec a Go
// caller builds is validated as the kernel validates a request, the VNI
// is unique per port, family and (link-local) lower device, a changelink
// moves the link to another lower, and the lower's deletion takes its
// vxlans.
func TestVxlanHandle(t *testing.T) {
	r := newRig(t, rtnl.After)
	requireErr(t, r.h.LinkAdd(netdev.Vxlan{Name: "vx0"}), syscall.EINVAL, "Required attributes not provided to perform the operation")
	r.ok(r.h.LinkAdd(netdev.Vxlan{Name: "vx0", Settings: vx(10, nil)}))
	li := r.link("vx0")
	require.Equal(t, "vxlan", li.Kind)
	require.Equal(t, 1500, li.MTU)
	require.Equal(t, 64, li.Headroom)
	require.Equal(t, netdev.VxlanInfo{VNI: 10, Remote: netip.IPv4Unspecified(), Local: netip.IPv4Unspecified(),
		Learning: true, Ageing: 300, Port: 8472, UDPCsum: true, LocalBypass: true,
		ReservedBits: [8]byte{0xf7, 0xff, 0xff, 0xff, 0, 0, 0, 0xff}}, *li.Vxlan)

	r.ok(r.h.LinkAdd(netdev.Veth{Name: "veth0", Peer: "veth1"}))
	ll := func(s *netdev.VxlanSettings) {
		s.Local, s.Group = addrPtr("fe80::1"), addrPtr("fe80::2")
		s.GBP = true
		s.RemcsumRX = new(true)
	}
	on := func(dev string, set func(s *netdev.VxlanSettings)) func(s *netdev.VxlanSettings) {
		return func(s *netdev.VxlanSettings) {
			i := r.link(dev).Index
			s.Link = &i
			set(s)
		}
	}
	r.ok(r.h.LinkAdd(netdev.Vxlan{Name: "vx1", Settings: vx(5, on("veth0", ll))}))
	li = r.link("vx1")
	require.Equal(t, 1430, li.MTU)
	require.Equal(t, 84, li.Headroom)
	require.Equal(t, [8]byte{0x77}, li.Vxlan.ReservedBits)
	// Link-local addresses: one VNI per lower device.
	r.ok(r.h.LinkAdd(netdev.Vxlan{Name: "vx2", Settings: vx(5, on("veth1", ll))}))
	requireErr(t, r.h.LinkAdd(netdev.Vxlan{Name: "vx3", Settings: vx(5, on("veth0", ll))}),
		syscall.EEXIST, "A VXLAN device with the specified VNI already exists")
	requireErr(t, r.h.LinkAdd(netdev.Vxlan{Name: "vx3", Settings: vx(5, ll)}), syscall.EINVAL,
		"Local interface required for link-local local/remote addresses")

	// changelink: vx1 cannot join vx2 on veth1 with the same VNI; once
	// vx2 is gone it moves there, and the TTL changes; the VNI may not.
	veth1 := r.link("veth1").Index
	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Name: "vx1", Change: rtnl.LinkChange{Vxlan: &netdev.VxlanSettings{Data: true, Link: &veth1}}}),
		syscall.EEXIST, "A VXLAN device with the specified VNI already exists")
	r.ok(r.h.LinkDel("vx2"))
	r.ok(r.h.NewLink(rtnl.LinkRequest{Name: "vx1", Change: rtnl.LinkChange{Vxlan: &netdev.VxlanSettings{Data: true, Link: &veth1, TTL: new(uint8(9))}}}))
	li = r.link("vx1")
	require.Equal(t, veth1, li.Vxlan.LinkIndex)
	require.Equal(t, uint8(9), li.Vxlan.TTL)
	require.Equal(t, [8]byte{0xf7, 0xff, 0xff, 0xff, 0, 0, 0, 0xff}, li.Vxlan.ReservedBits, "recomputed from the changelink's attributes")
	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Name: "vx1", Change: rtnl.LinkChange{Vxlan: &netdev.VxlanSettings{Data: true, ID: new(uint32(6))}}}),
		syscall.EOPNOTSUPP, "Cannot change VNI")
	require.Same(t, r.dev("veth1"), r.dev("vx1").VxlanLower())
	require.NoError(t, r.k.CheckInvariants())

	// veth0's deletion takes veth1, and vx1 on it.
	r.ok(r.h.LinkDel("veth0"))
	r.settle()
	links, err := r.h.LinkList()
	r.ok(err)
	var names []string
	for _, l := range links {
		names = append(names, l.Name)
	}
	require.Equal(t, []string{"lo", "vx0"}, names)
	require.NoError(t, r.k.CheckInvariants())
}

// TestVxlanVNIScanQuadratic: each creation walks the namespace's vxlans
// (vxlan_vni_in_use), N(N-1)/2 devices creating N; a changelink walks them
// all, itself included.
func TestVxlanVNIScanQuadratic(t *testing.T) {
	r := newRig(t, rtnl.After)
	const n = 200
	before := r.counters()
	for i := range n {
		r.ok(r.h.LinkAdd(netdev.Vxlan{Name: fmt.Sprintf("vx%d", i), Settings: vx(uint32(i), nil)}))
	}
	require.Equal(t, int64(n*(n-1)/2), r.counters().Sub(before).Get(sim.VxlanVNIScan))
	before = r.counters()
	r.ok(r.h.NewLink(rtnl.LinkRequest{Name: "vx7", Change: rtnl.LinkChange{Vxlan: &netdev.VxlanSettings{Data: true, TTL: new(uint8(3))}}}))
	require.Equal(t, int64(n), r.counters().Sub(before).Get(sim.VxlanVNIScan))
}
