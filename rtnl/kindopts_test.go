package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
)

func u8p(v uint8) *uint8    { return &v }
func u16p(v uint16) *uint16 { return &v }
func u32p(v uint32) *uint32 { return &v }

// TestBondDefaults: a new bond's options are bond_check_params' defaults,
// as bond_fill_info reports them; 802.3ad adds the actor's settings.
func TestBondDefaults(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "b0"}))
	b := r.link("b0").Bond
	require.NotNil(t, b)
	require.Equal(t, netdev.BondParams{
		UseCarrier: 1, ResendIGMP: 1, NumPeerNotif: 1, LpInterval: 1, PacketsPerSlave: 1, LacpActive: 1,
		AdActorSysPrio: 65535, TLBDynamicLB: 1, MissedMax: 2, CoupledControl: 1,
	}, b.BondParams)
	require.Zero(t, b.ActiveSlave)
	require.Zero(t, b.Primary)
}

// TestBondModeSideEffects: bond_option_mode_set starts MII monitoring at
// 100 ms for the modes without ARP monitoring, and balance-alb turns on
// dynamic load balancing; arp_validate is not kept across modes.
func TestBondModeSideEffects(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "ad", Mode: netdev.Bond8023AD}))
	require.Equal(t, uint32(100), r.link("ad").Bond.Miimon)
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "ab", Mode: netdev.BondActiveBackup}))
	require.Zero(t, r.link("ab").Bond.Miimon)
	// An ARP monitor stops when the mode cannot use it.
	r.ok(r.h.LinkSetBond("ab", netdev.BondSettings{ArpInterval: u32p(200), ArpValidate: u32p(3)}))
	ab := r.link("ab").Bond
	require.Equal(t, [2]uint32{200, 3}, [2]uint32{ab.ArpInterval, ab.ArpValidate})
	m := netdev.BondALB
	r.ok(r.h.LinkSetBond("ab", netdev.BondSettings{Mode: &m, TLBDynamicLB: u8p(0)}))
	m = netdev.BondALB
	r.ok(r.h.LinkSetBond("ab", netdev.BondSettings{Mode: &m}))
	ab = r.link("ab").Bond
	require.Equal(t, netdev.BondALB, ab.Mode)
	require.Equal(t, [4]uint32{0, 0, 100, 1}, [4]uint32{ab.ArpInterval, ab.ArpValidate, ab.Miimon, uint32(ab.TLBDynamicLB)})
}

// TestBondOptionErrors: __bond_opt_set's refusals and their extack
// messages, and bond_changelink's own; a refused request changes nothing.
func TestBondOptionErrors(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "b0"}))
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb"}))
	before := r.link("b0").Bond
	m7, m1 := netdev.BondMode(7), netdev.BondActiveBackup
	for _, tc := range []struct {
		name string
		s    netdev.BondSettings
		e    syscall.Errno
		msg  string
	}{
		{"mode 7", netdev.BondSettings{Mode: &m7}, syscall.EINVAL, "invalid option value"},
		{"miimon above INT_MAX", netdev.BondSettings{Miimon: u32p(1 << 31)}, syscall.EINVAL, "invalid option value"},
		{"use_carrier 0 (6.18: 1 only)", netdev.BondSettings{UseCarrier: u8p(0)}, syscall.EINVAL, "invalid option value"},
		{"updelay without miimon", netdev.BondSettings{UpDelay: u32p(100)}, syscall.EPERM, ""},
		{"arp and mii monitors", netdev.BondSettings{Miimon: u32p(100), ArpInterval: u32p(100)}, syscall.EINVAL, "ARP monitoring cannot be used with MII monitoring"},
		{"arp_validate with miimon", netdev.BondSettings{Miimon: u32p(100), ArpValidate: u32p(1)}, syscall.EINVAL, "ARP validating cannot be used with MII monitoring"},
		{"lacp_rate outside 802.3ad", netdev.BondSettings{LacpRate: u8p(1)}, syscall.EACCES, "option not supported in mode"},
		{"primary outside the active-backup modes", netdev.BondSettings{Primary: new(netdev.IfIndex(2))}, syscall.EACCES, "option not supported in mode"},
		{"lp_interval 0", netdev.BondSettings{LpInterval: u32p(0)}, syscall.EINVAL, "invalid option value"},
		{"packets_per_slave above 65535", netdev.BondSettings{PacketsPerSlave: u32p(65536)}, syscall.EINVAL, "invalid option value"},
		{"missed_max 0", netdev.BondSettings{MissedMax: u8p(0)}, syscall.EINVAL, "invalid option value"},
		{"xmit_hash_policy 6", netdev.BondSettings{XmitHashPolicy: u8p(6)}, syscall.EINVAL, "invalid option value"},
		{"a zero-net ARP target", netdev.BondSettings{ArpIPTargets: &[]netip.Addr{netip.MustParseAddr("0.1.2.3")}}, syscall.EINVAL, "invalid option value"},
		{"a broadcast ARP target", netdev.BondSettings{ArpIPTargets: &[]netip.Addr{netip.MustParseAddr("255.255.255.255")}}, syscall.EINVAL, "invalid option value"},
		{"a duplicate ARP target", netdev.BondSettings{ArpIPTargets: &[]netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.1")}}, syscall.EINVAL, "invalid option value"},
		{"a short ARP target", netdev.BondSettings{ArpIPTargets: &[]netip.Addr{{}}}, syscall.EINVAL, ""},
		{"a multicast NS target", netdev.BondSettings{NSIP6Targets: &[]netip.Addr{netip.MustParseAddr("ff02::1")}}, syscall.EINVAL, "invalid option value"},
		{"a short NS target", netdev.BondSettings{NSIP6Targets: &[]netip.Addr{{}}}, syscall.EINVAL, "Invalid IPv6 address"},
		{"an unknown active slave", netdev.BondSettings{Mode: &m1, ActiveSlave: new(netdev.IfIndex(99))}, syscall.ENODEV, ""},
		{"an active slave that is not one", netdev.BondSettings{Mode: &m1, ActiveSlave: new(netdev.IfIndex(2))}, syscall.EINVAL, "invalid option value"},
		{"an actor system of 5 bytes", netdev.BondSettings{AdActorSystem: []byte{2, 0, 0, 0, 1}}, syscall.EINVAL, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireErr(t, r.h.LinkSetBond("b0", tc.s), tc.e, tc.msg)
			require.Equal(t, before, r.link("b0").Bond, "a refused request changed the bond")
		})
	}
	// 17 targets: the table holds 16.
	var many []netip.Addr
	for i := range 17 {
		many = append(many, netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}))
	}
	requireErr(t, r.h.LinkSetBond("b0", netdev.BondSettings{ArpIPTargets: &many}), syscall.EINVAL, "invalid option value")
	many = many[:16]
	r.ok(r.h.LinkSetBond("b0", netdev.BondSettings{ArpIPTargets: &many}))
	require.Equal(t, many, r.link("b0").Bond.ArpIPTargets)
	// An empty list clears them.
	r.ok(r.h.LinkSetBond("b0", netdev.BondSettings{ArpIPTargets: &[]netip.Addr{}}))
	require.Empty(t, r.link("b0").Bond.ArpIPTargets)

	// Up, the bond refuses the IFDOWN options; with a slave, the
	// NOSLAVES ones.
	r.up("b0")
	m0 := netdev.BondRoundRobin
	requireErr(t, r.h.LinkSetBond("b0", netdev.BondSettings{Mode: &m0}), syscall.EBUSY, "unable to set option because the bond is up")
	r.ok(r.h.LinkSetDown("b0"))
	r.ok(r.h.LinkSetMaster("va", "b0"))
	requireErr(t, r.h.LinkSetBond("b0", netdev.BondSettings{FailOverMac: u8p(1)}), syscall.ENOTEMPTY, "unable to set option because the bond device has slaves")
	// A new bond refuses its options as a change does, and is not made.
	requireErr(t, r.h.LinkAdd(netdev.Bond{Name: "b1", Settings: netdev.BondSettings{LacpRate: u8p(1)}}), syscall.EACCES, "option not supported in mode")
	_, err := r.h.LinkByName("b1")
	require.Error(t, err)
}

// TestBondDelays: the delays are kept as multiples of miimon, rounded
// down, and reported in milliseconds; a later miimon changes them.
func TestBondDelays(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "b0", Settings: netdev.BondSettings{Miimon: u32p(100), UpDelay: u32p(250), DownDelay: u32p(300)}}))
	b := r.link("b0").Bond
	require.Equal(t, [3]uint32{100, 200, 300}, [3]uint32{b.Miimon, b.UpDelay, b.DownDelay})
	r.ok(r.h.LinkSetBond("b0", netdev.BondSettings{Miimon: u32p(50)}))
	b = r.link("b0").Bond
	require.Equal(t, [3]uint32{50, 100, 150}, [3]uint32{b.Miimon, b.UpDelay, b.DownDelay})
	// ARP monitoring stops MII monitoring: the delays read 0.
	r.ok(r.h.LinkSetBond("b0", netdev.BondSettings{ArpInterval: u32p(1000)}))
	b = r.link("b0").Bond
	require.Equal(t, [4]uint32{0, 1000, 0, 0}, [4]uint32{b.Miimon, b.ArpInterval, b.UpDelay, b.DownDelay})
}

// TestBondSlaves: a port's slave data (bond_fill_slave_info) in an
// active-backup bond: the active slave, the backup, the permanent address,
// the MII state an enslave with MII monitoring gives a slave without
// carrier; bond_slave_changelink's queue_id and prio; the primary.
func TestBondSlaves(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "b0", Mode: netdev.BondActiveBackup}))
	for _, n := range []string{"a", "b", "c"} {
		r.ok(r.h.LinkAdd(netdev.Veth{Name: "e" + n, Peer: "p" + n, Attrs: netdev.Attrs{Addr: mustMAC("02:00:00:00:00:0" + map[string]string{"a": "a", "b": "b", "c": "c"}[n])}}))
		r.up("p" + n)
	}
	r.ok(r.h.LinkSetMaster("ea", "b0"))
	r.ok(r.h.LinkSetMaster("eb", "b0"))
	a, b := r.link("ea"), r.link("eb")
	require.Equal(t, "bond", a.SlaveKind)
	require.Equal(t, netdev.BondSlaveInfo{State: netdev.BondStateActive, MIIStatus: netdev.BondLinkUp, PermHWAddr: mustMAC("02:00:00:00:00:0a")}, *a.BondSlave)
	require.Equal(t, netdev.BondStateBackup, b.BondSlave.State)
	require.Equal(t, a.Index, r.link("b0").Bond.ActiveSlave)

	// The active slave moves on request; prio and queue ids are kept.
	r.ok(r.h.LinkSetBond("b0", netdev.BondSettings{ActiveSlave: new(b.Index)}))
	require.Equal(t, b.Index, r.link("b0").Bond.ActiveSlave)
	require.Equal(t, netdev.BondStateBackup, r.link("ea").BondSlave.State)
	r.ok(r.h.LinkSetBondSlave("ea", netdev.BondSlaveSettings{QueueID: u16p(3), Prio: new(int32(-7))}))
	ea := r.link("ea").BondSlave
	require.Equal(t, [2]int64{3, -7}, [2]int64{int64(ea.QueueID), int64(ea.Prio)})
	requireErr(t, r.h.LinkSetBondSlave("eb", netdev.BondSlaveSettings{QueueID: u16p(3)}), syscall.EPERM, "")  // another slave's
	requireErr(t, r.h.LinkSetBondSlave("eb", netdev.BondSlaveSettings{QueueID: u16p(17)}), syscall.EPERM, "") // above 16 queues
	r.ok(r.h.LinkSetBondSlave("eb", netdev.BondSlaveSettings{QueueID: u16p(16)}))
	requireErr(t, r.h.LinkSetBondSlave("pa", netdev.BondSlaveSettings{QueueID: u16p(1)}), syscall.EOPNOTSUPP, "Device \"pa\" is not a bond port")

	// A primary named before it is a slave becomes one when enslaved;
	// it is the active slave once up.
	r.ok(r.h.LinkSetBond("b0", netdev.BondSettings{ActiveSlave: new(netdev.IfIndex(0)), Primary: new(r.link("ec").Index)}))
	require.Zero(t, r.link("b0").Bond.Primary)
	r.ok(r.h.LinkSetMaster("ec", "b0"))
	require.Equal(t, r.link("ec").Index, r.link("b0").Bond.Primary)
	require.Equal(t, r.link("ec").Index, r.link("b0").Bond.ActiveSlave)
	r.ok(r.h.LinkSetNoMaster("ec"))
	require.Zero(t, r.link("b0").Bond.Primary)
	require.Nil(t, r.link("ec").BondSlave)

	// With MII monitoring, a slave without carrier starts DOWN; prio is
	// refused in a mode without an active slave.
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "b1", Settings: netdev.BondSettings{Miimon: u32p(100)}}))
	r.ok(r.h.LinkSetDown("pc"))
	r.ok(r.h.LinkSetMaster("ec", "b1"))
	require.Equal(t, netdev.BondLinkDown, r.link("ec").BondSlave.MIIStatus)
	requireErr(t, r.h.LinkSetBondSlave("ec", netdev.BondSlaveSettings{Prio: new(int32(1))}), syscall.EACCES, "option not supported in mode")
}

// TestVlanOptions: vlan_validate's checks, 802.1ad beside 802.1Q on one
// lower device, vlan_dev_change_flags, and the priority maps as
// vlan_fill_info reports them.
func TestVlanOptions(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d0"}))
	r.ok(r.h.LinkAdd(netdev.Vlan{Name: "q10", Link: "d0", ID: 10}))
	r.ok(r.h.LinkAdd(netdev.Vlan{Name: "ad10", Link: "d0", ID: 10, Protocol: netdev.VlanProto8021AD}))
	requireErr(t, r.h.LinkAdd(netdev.Vlan{Name: "ad10b", Link: "d0", ID: 10, Protocol: netdev.VlanProto8021AD}), syscall.EEXIST, "8021q: VLAN device already exists")
	requireErr(t, r.h.LinkAdd(netdev.Vlan{Name: "x", Link: "d0", ID: 11, Protocol: 0x0800}), syscall.EPROTONOSUPPORT, "8021q: Invalid VLAN protocol")
	requireErr(t, r.h.LinkAdd(netdev.Vlan{Name: "x", Link: "d0", ID: 11, Settings: netdev.VlanSettings{Flags: &netdev.VlanFlags{Flags: 0x20, Mask: 0x20}}}), syscall.EINVAL, "8021q: Invalid VLAN flags")
	require.Equal(t, netdev.VlanInfo{Protocol: netdev.VlanProto8021AD, ID: 10, Flags: netdev.VlanFlagReorderHdr}, *r.link("ad10").Vlan)
	// A request without IFLA_INFO_DATA fails in vlan_validate, before its
	// flags' check; one without IFLA_VLAN_ID in vlan_newlink, after the
	// validation and before the lower device is looked up.
	requireErr(t, r.h.LinkAdd(netdev.Vlan{Name: "x", Link: "d0", NoData: true, Settings: netdev.VlanSettings{Flags: &netdev.VlanFlags{Flags: 0x20, Mask: 0x20}}}), syscall.EINVAL, "8021q: VLAN properties not specified")
	requireErr(t, r.h.LinkAdd(netdev.Vlan{Name: "x", Link: "d0", NoID: true, Protocol: 0x0800}), syscall.EPROTONOSUPPORT, "8021q: Invalid VLAN protocol")
	requireErr(t, r.h.LinkAdd(netdev.Vlan{Name: "x", Link: "nodev", NoID: true}), syscall.EINVAL, "8021q: VLAN id not specified")

	// Flags: the mask says which change; a mask with unknown bits is a
	// bare EINVAL (vlan_dev_change_flags), flags outside the mask are not
	// looked at.
	r.ok(r.h.LinkSetVlan("q10", netdev.VlanSettings{Flags: &netdev.VlanFlags{Flags: netdev.VlanFlagGVRP | 0x40, Mask: netdev.VlanFlagGVRP | netdev.VlanFlagReorderHdr}}))
	require.Equal(t, uint32(netdev.VlanFlagGVRP), r.link("q10").Vlan.Flags)
	requireErr(t, r.h.LinkSetVlan("q10", netdev.VlanSettings{Flags: &netdev.VlanFlags{Mask: 0x40}}), syscall.EINVAL, "")
	// Maps: ingress by VLAN priority (its low 3 bits), a mapping to 0
	// removes; egress by skb priority in 16 buckets, newest first, a
	// mapping to VLAN priority 0 is kept but not reported.
	r.ok(r.h.LinkSetVlan("q10", netdev.VlanSettings{
		IngressQoS: []netdev.VlanQoSMapping{{From: 3, To: 30}, {From: 9, To: 10}, {From: 2, To: 0}},
		EgressQoS:  []netdev.VlanQoSMapping{{From: 5, To: 2}, {From: 21, To: 4}, {From: 1, To: 0}, {From: 37, To: 11}},
	}))
	v := r.link("q10").Vlan
	require.Equal(t, []netdev.VlanQoSMapping{{From: 1, To: 10}, {From: 3, To: 30}}, v.IngressQoS)
	require.Equal(t, []netdev.VlanQoSMapping{{From: 37, To: 3}, {From: 21, To: 4}, {From: 5, To: 2}}, v.EgressQoS)
	r.ok(r.h.LinkSetVlan("q10", netdev.VlanSettings{IngressQoS: []netdev.VlanQoSMapping{{From: 3, To: 0}}, EgressQoS: []netdev.VlanQoSMapping{{From: 21, To: 0}}}))
	v = r.link("q10").Vlan
	require.Equal(t, []netdev.VlanQoSMapping{{From: 1, To: 10}}, v.IngressQoS)
	require.Equal(t, []netdev.VlanQoSMapping{{From: 37, To: 3}, {From: 5, To: 2}}, v.EgressQoS)
	// vlan_validate checks a change's id; vlan_changelink does not apply it.
	requireErr(t, r.h.LinkSetVlan("q10", netdev.VlanSettings{ID: u16p(4095)}), syscall.ERANGE, "8021q: Invalid VLAN id")
	r.ok(r.h.LinkSetVlan("q10", netdev.VlanSettings{ID: u16p(20)}))
	require.Equal(t, uint16(10), r.link("q10").Vlan.ID)
	requireErr(t, r.h.LinkSetVlan("d0", netdev.VlanSettings{}), syscall.EOPNOTSUPP, "")
}

// TestBondSlavePrio: with no primary, the active slave is the one of the
// highest priority among those whose link is up (the first of equals);
// a priority set reselects it (bond_option_prio_set,
// bond_choose_primary_or_current). With ARP monitoring, a slave with
// carrier starts up.
func TestBondSlavePrio(t *testing.T) {
	r := newRig(t, rtnl.After)
	targets := []netip.Addr{netip.MustParseAddr("192.168.222.2"), netip.MustParseAddr("192.168.222.3")}
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "b0", Mode: netdev.BondActiveBackup, Settings: netdev.BondSettings{ArpInterval: u32p(5), ArpIPTargets: &targets}}))
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d1"}))
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d2"}))
	r.ok(r.h.LinkSetMaster("d1", "b0"))
	r.ok(r.h.LinkSetMaster("d2", "b0"))
	require.Equal(t, netdev.BondStateActive, r.link("d1").BondSlave.State)
	require.Equal(t, netdev.BondStateBackup, r.link("d2").BondSlave.State)
	r.ok(r.h.LinkSetBondSlave("d2", netdev.BondSlaveSettings{Prio: new(int32(1))}))
	d1, d2 := r.link("d1").BondSlave, r.link("d2").BondSlave
	require.Equal(t, [2]uint8{netdev.BondStateBackup, netdev.BondLinkUp}, [2]uint8{d1.State, d1.MIIStatus})
	require.Equal(t, [2]uint8{netdev.BondStateActive, netdev.BondLinkUp}, [2]uint8{d2.State, d2.MIIStatus})
	require.Equal(t, r.link("d2").Index, r.link("b0").Bond.ActiveSlave)
	b := r.link("b0").Bond
	require.Equal(t, [2]uint32{0, 5}, [2]uint32{b.Miimon, b.ArpInterval})
	require.Equal(t, targets, b.ArpIPTargets)
}
