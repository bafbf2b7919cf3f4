package netdev_test

import (
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// TestBond follows a balance-rr bond through its life: the bond takes its
// first slave's address; enslaving sets the slave's address and MTU to the
// bond's, marks it SLAVE (no link-local address) and opens it; while the
// bond is up its multicast list is synced to every slave
// (dev_mc_sync_multiple), and closing the bond takes it back; releasing a
// slave restores its address and MTU and closes it; deleting the bond
// releases the others.
//
// Kernel: bond_enslave, __bond_release_one, bond_set_rx_mode, bond_close,
// bond_uninit (drivers/net/bonding/bond_main.c).
func TestBond(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	a0, a1 := mac("02:00:00:00:00:a0"), mac("02:00:00:00:00:a1")
	e.add(
		netdev.Bond{Name: "bond0"},
		netdev.Dummy{Name: "s0", Attrs: netdev.Attrs{Addr: a0, MTU: 9000}},
		netdev.Dummy{Name: "s1", Attrs: netdev.Attrs{Addr: a1}},
		netdev.Vlan{Name: "bond0.5", Link: "bond0", ID: 5},
	)
	bond, s0, s1, vlan := e.dev("bond0"), e.dev("s0"), e.dev("s1"), e.dev("bond0.5")
	require.Equal(t, netdev.BondRoundRobin, bond.BondMode())
	require.NotEqual(t, a0, bond.Addr(), "a random address until the first slave")

	e.up("bond0")
	require.False(t, bond.Carrier(), "no slaves, no carrier")
	require.Equal(t, netdev.OperDown, bond.OperState())
	require.Equal(t, netdev.OperLowerLayerDown, vlan.OperState())
	require.Empty(t, bond.Inet6Addrs(), "no link-local address before carrier")

	e.rec.take()
	e.master("s0", "bond0")
	require.Equal(t, a0, bond.Addr(), "the bond takes its first slave's address")
	require.Equal(t, a0, vlan.Addr(), "and the vlan using the bond's address follows")
	require.Equal(t, 1500, s0.MTU(), "the slave takes the bond's MTU")
	require.True(t, s0.IsUp(), "enslaving opens the slave")
	require.Contains(t, s0.Flags().String(), "SLAVE")
	require.Same(t, bond, s0.Master())
	require.Empty(t, s0.Inet6Addrs(), "a slave gets no link-local address")
	require.True(t, bond.Carrier())
	require.Equal(t, netdev.OperUp, bond.OperState())
	require.Equal(t, netdev.OperUp, vlan.OperState(), "the vlan's carrier follows the bond's")
	require.Equal(t, []string{
		"NETDEV_CHANGEADDR bond0.5", "NETDEV_CHANGEADDR bond0",
		"NETDEV_CHANGEMTU s0", "NETDEV_PRE_UP s0", "NETDEV_UP s0",
		"NETDEV_PRECHANGEUPPER s0", "NETDEV_CHANGEUPPER s0",
		"NETDEV_CHANGE bond0", "NETDEV_CHANGE bond0.5",
	}, e.rec.take("s0", "bond0", "bond0.5"))
	require.Len(t, bond.Inet6Addrs(), 1, "NETDEV_CHANGE gave the bond its link-local address")
	require.Len(t, vlan.Inet6Addrs(), 1, "and the vlan")

	e.master("s1", "bond0")
	require.Equal(t, a0, s1.Addr(), "later slaves take the bond's address")
	require.Equal(t, a0, bond.Addr())

	// Every entry of the bond's multicast list is on both slaves, pushed
	// there by a sync (synced=1) on top of the slave's own references.
	e.addAddr("bond0", "2001:db8::1:2:3/64")
	require.True(t, has(bond.MC(), "33:33:ff:02:00:03"), "the bond joined the solicited-node group")
	synced := func(s *netdev.Device) {
		t.Helper()
		require.NotZero(t, bond.MC().Len())
		for be := range bond.MC().All() {
			se, ok := entry(s.MC(), be.Addr.String())
			require.True(t, ok, "%s lacks %s", s, be.Addr)
			require.Equal(t, 1, se.Synced, "%s %s", s, be.Addr)
		}
	}
	synced(s0)
	synced(s1)
	ent, _ := entry(bond.MC(), "33:33:ff:02:00:03")
	require.Equal(t, 2, ent.SyncCnt, "pushed to two slaves")

	// Closing the bond takes its addresses back from the slaves; opening
	// it pushes them again.
	e.down("bond0")
	require.False(t, has(s0.MC(), "33:33:ff:02:00:03"))
	for se := range s0.MC().All() {
		require.Zero(t, se.Synced, "%s", se)
	}
	e.up("bond0")
	synced(s0)
	synced(s1)

	// Releasing s1 restores it.
	e.master("s1", "")
	require.Nil(t, s1.Master())
	require.Equal(t, a1, s1.Addr())
	require.False(t, s1.IsUp(), "a released slave is closed")
	require.NotContains(t, s1.Flags().String(), "SLAVE")
	require.False(t, has(s1.MC(), "33:33:ff:02:00:03"))
	require.Equal(t, []string{"33:33:00:00:00:01"}, macs(s1.MC()), "only its own all-nodes group is left")
	require.Equal(t, []*netdev.Device{s0}, bond.Slaves())

	// Deleting the bond releases s0: its own address and MTU come back.
	e.del("bond0")
	require.Nil(t, s0.Master())
	require.Equal(t, a0, s0.Addr())
	require.Equal(t, 9000, s0.MTU())
	require.False(t, s0.IsUp())
	require.Equal(t, []string{"33:33:00:00:00:01"}, macs(s0.MC()))
	require.Nil(t, e.tbl.ByName("bond0.5"), "the vlan went with the bond")
}

// TestBondEnslaveChecks covers bond_enslave's refusals; none changes
// anything, and a device moved between masters is released only once the
// new master would take it.
func TestBondEnslaveChecks(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Bond{Name: "b0"}, netdev.Bond{Name: "b1"}, netdev.Dummy{Name: "d0"}, netdev.VRF{Name: "vrf0", Table: 7},
		netdev.Dummy{Name: "d1"}, netdev.Macvlan{Name: "mv", Link: "d1"})
	e.up("d0")
	try := func(name, master string) error {
		d, m := e.dev(name), e.dev(master)
		return e.try(func() error { return d.SetMaster(e.t, m) })
	}
	cases := []struct {
		name, dev, master string
		errno             syscall.Errno
		msg               string
	}{
		{"up", "d0", "b0", syscall.EPERM, "while up"},                               // the slave must be down
		{"itself", "b0", "b0", syscall.EPERM, "to itself"},                          // bond_dev == slave_dev
		{"vrf", "vrf0", "b0", syscall.EPERM, "master device"},                       // IFF_MASTER, not a bond
		{"macvlan-lower", "d1", "b0", syscall.EBUSY, "in use"},                      // rx_handler taken
		{"lo", "lo", "b0", syscall.EINVAL, "type is different"},                     // not Ethernet
		{"not-a-master", "d1", "d0", syscall.EOPNOTSUPP, `"d0" cannot be a master`}, // no ndo_add_slave
		{"vrf-port-lo", "lo", "vrf0", syscall.EOPNOTSUPP, "loopback"},               // do_vrf_add_slave
		{"vrf-into-vrf", "vrf0", "vrf0", syscall.EINVAL, "L3 master"},               // vrf_add_slave
		{"nested-loop-setup", "b1", "b0", 0, ""},                                    // b1 into b0 is fine
		{"nested-loop", "b0", "b1", syscall.EBUSY, "stacked on it"},                 // b0 is above b1
		{"move-up-to-bond", "d0", "b1", syscall.EPERM, "while up"},                  // still up
		{"move-bond-slave-to-bond", "b1", "b0", 0, ""},                              // already there: no-op
		{"move-vrf-port-up", "d0", "vrf0", 0, ""},                                   // d0 (up) into the vrf
		{"move-vrf-port-up-to-bond", "d0", "b1", syscall.EPERM, "while up"},         // a vrf port stays up: refused, stays
		{"move-bond-slave-to-other-bond", "b1", "b0", 0, ""},                        // no-op again
	}
	for _, c := range cases {
		err := try(c.dev, c.master)
		if c.errno == 0 {
			require.NoError(t, err, c.name)
			continue
		}
		require.ErrorIs(t, err, c.errno, c.name)
		require.ErrorContains(t, err, c.msg, c.name)
	}
	require.Same(t, e.dev("vrf0"), e.dev("d0").Master(), "a refused move leaves the device with its master")
	require.True(t, e.dev("d0").IsUp())

	// A vlan whose lower is down cannot be opened, so a bond refuses it,
	// and a vrf port moved to the bond stays in the vrf.
	e.add(netdev.Dummy{Name: "d3"}, netdev.Vlan{Name: "vd", Link: "d3", ID: 3})
	vd := e.dev("vd")
	e.master("vd", "vrf0")
	err := try("vd", "b0")
	require.ErrorIs(t, err, syscall.ENETDOWN)
	require.Same(t, e.dev("vrf0"), vd.Master())

	// A slave that fails to open inside bond_enslave (a macvlan whose
	// address another macvlan of its lower uses) is left as it was, and so
	// is the bond, which had taken the slave's address as its first.
	e.add(netdev.Dummy{Name: "d4"}, netdev.Bond{Name: "b3"},
		netdev.Macvlan{Name: "m1", Link: "d4", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:01")}},
		netdev.Macvlan{Name: "m2", Link: "d4", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:01")}})
	e.up("m1")
	b3, m2 := e.dev("b3"), e.dev("m2")
	b3Addr := b3.Addr()
	err = try("m2", "b3")
	require.ErrorIs(t, err, syscall.EADDRINUSE)
	require.Equal(t, b3Addr, b3.Addr())
	require.Equal(t, mac("02:00:00:00:00:01"), m2.Addr())
	require.Nil(t, m2.Master())
	require.NotContains(t, m2.Flags().String(), "SLAVE")
	require.False(t, m2.IsUp())
	e.add(netdev.Dummy{Name: "s9", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:99")}})
	e.master("s9", "b3")
	require.Equal(t, mac("02:00:00:00:00:99"), b3.Addr(), "b3 still takes its first slave's address")

	// A bond slave moved to another bond is closed by the release, so the
	// new bond takes it.
	e.add(netdev.Bond{Name: "b2"}, netdev.Dummy{Name: "s"})
	e.master("s", "b2")
	require.NoError(t, try("s", "b0"))
	require.Same(t, e.dev("b0"), e.dev("s").Master())
}

// TestVRF: enslaving an up device to a vrf cycles it (down and up again);
// so does deleting the vrf, which releases its ports. A vrf has no
// link-local address; its ports get theirs back when they come up again.
//
// Kernel: do_vrf_add_slave, cycle_netdev, vrf_dellink (drivers/net/vrf.c),
// addrconf_notify NETDEV_CHANGEUPPER.
func TestVRF(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.VRF{Name: "vrf0", Table: 10}, netdev.Veth{Name: "p0", Peer: "p0x"})
	e.up("vrf0", "p0", "p0x")
	vrf, p0 := e.dev("vrf0"), e.dev("p0")
	require.Equal(t, uint32(10), vrf.VRFTable())
	require.Equal(t, netdev.OperUp, vrf.OperState())
	require.Contains(t, vrf.Flags().String(), "MASTER")
	require.Empty(t, vrf.Inet6Addrs(), "an L3 master gets no link-local address")
	require.Len(t, p0.Inet6Addrs(), 1)

	// The cycle's carrier changes (veth_close, veth_open) reach linkwatch
	// after it: NETDEV_CHANGE for p0, up again (linkwatch_do_dev).
	cycle := []string{"NETDEV_GOING_DOWN p0", "NETDEV_DOWN p0", "NETDEV_PRE_UP p0", "NETDEV_UP p0", "NETDEV_CHANGE p0"}
	e.rec.take()
	e.master("p0", "vrf0")
	require.Equal(t, append([]string{"NETDEV_PRECHANGEUPPER p0", "NETDEV_CHANGEUPPER p0"}, cycle...), e.rec.take("p0"))
	require.Same(t, vrf, p0.Master())
	require.Equal(t, []*netdev.Device{p0}, vrf.Slaves())
	require.True(t, p0.IsUp())
	require.Len(t, p0.Inet6Addrs(), 1, "the port's link-local address is back")

	// A port that is down is not cycled.
	e.add(netdev.Dummy{Name: "p1"})
	e.rec.take()
	e.master("p1", "vrf0")
	require.Equal(t, []string{"NETDEV_PRECHANGEUPPER p1", "NETDEV_CHANGEUPPER p1"}, e.rec.take("p1"))

	// nomaster: unlink, a grace period, cycle.
	before := e.w.Counters()
	e.master("p1", "")
	require.Equal(t, int64(1), e.w.Counters().Sub(before).Get(sim.SyncExpedited), "vrf_del_slave's synchronize_net")

	e.rec.take()
	e.del("vrf0")
	require.Equal(t, append([]string{"NETDEV_PRECHANGEUPPER p0", "NETDEV_CHANGEUPPER p0"}, cycle...), e.rec.take("p0"))
	require.Nil(t, p0.Master())
	require.True(t, p0.IsUp())
	require.Equal(t, []string{"lo", "p0x", "p0", "p1"}, e.names())
}

// TestDeleteCascades: deleting a lower deletes the vlans and macvlans on
// it (in a nested batch, still one rcu_barrier); deleting either end of a
// veth deletes the pair; a deleted bond slave leaves its bond.
//
// Kernel: vlan_device_event / macvlan_device_event NETDEV_UNREGISTER,
// veth_dellink, bond_netdev_event.
func TestDeleteCascades(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(
		netdev.Veth{Name: "va", Peer: "vb"},
		netdev.Vlan{Name: "va.10", Link: "va", ID: 10},
		netdev.Vlan{Name: "va.11", Link: "va", ID: 11},
		netdev.Macvlan{Name: "mv", Link: "va"},
		netdev.Vlan{Name: "vb.10", Link: "vb", ID: 10},
		netdev.Bond{Name: "bond0"},
		netdev.Dummy{Name: "s0"},
		netdev.Dummy{Name: "s1"},
	)
	e.up("va", "vb", "mv", "bond0")
	e.master("s0", "bond0")
	e.master("s1", "bond0")

	before := e.w.Counters()
	e.del("vb")
	d := e.w.Counters().Sub(before)
	require.Equal(t, []string{"lo", "bond0", "s0", "s1"}, e.names())
	require.Equal(t, int64(6), d.Get(sim.DevUnregister), "va, vb, two vlans and a macvlan on va, a vlan on vb")
	require.Equal(t, int64(1), d.Get(sim.RCUBarrier), "one netdev_run_todo")
	require.Zero(t, e.tbl.UnregisteringCount())

	e.del("s0")
	require.Equal(t, []*netdev.Device{e.dev("s1")}, e.dev("bond0").Slaves())
	require.True(t, e.dev("bond0").Carrier(), "s1 still carries the bond")
	e.del("s1")
	require.Empty(t, e.dev("bond0").Slaves())
	require.False(t, e.dev("bond0").Carrier())
	require.Equal(t, netdev.OperDown, e.dev("bond0").OperState())
}

// TestRefcount: Hold and Put count references; a deleted device is freed
// only when they are gone, and until then its namespace counts it as
// unregistering.
func TestRefcount(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Dummy{Name: "d0"})
	d := e.dev("d0")
	base := d.RefCount()
	require.Positive(t, base, "IPv4 and IPv6 state hold references")
	d.Hold()
	d.Hold()
	require.Equal(t, base+2, d.RefCount())
	d.Put()
	require.Equal(t, base+1, d.RefCount())

	// Deleting: the RCU callbacks drop what the IP layers held, the extra
	// reference stays, so netdev_wait_allrefs polls until an RCU callback
	// queued by another one drops it.
	rcu := e.w.RCU()
	rcu.Call(e.t, func(k *sim.Task) { rcu.Call(k, func(*sim.Task) { d.Put() }) })
	e.rtnl.Lock(e.t)
	require.NoError(t, e.tbl.DelLink(e.t, d))
	require.False(t, d.Registered())
	require.Equal(t, 1, e.tbl.UnregisteringCount())
	todo := e.s.TakeTodo()
	e.rtnl.Unlock(e.t)
	require.Equal(t, []*netdev.Device{d}, todo)
	before := e.w.Counters()
	e.s.RunTodo(e.t, todo)
	require.Zero(t, d.RefCount())
	require.Zero(t, e.tbl.UnregisteringCount())
	require.Equal(t, int64(1), e.w.Counters().Sub(before).Get(sim.Sleep), "one poll")
}
