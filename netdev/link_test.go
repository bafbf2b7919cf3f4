package netdev_test

import (
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

func TestValidName(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"eth0", true},            // an ordinary name
		{"a", true},               // one byte is enough
		{"abcdefghijklmno", true}, // IFNAMSIZ-1 = 15 bytes, the longest
		{"abcdefghijklmnop", false},
		{"", false},        // empty
		{".", false},       // the directory entries
		{"..", false},      //
		{"...", true},      // but three dots is a name
		{"a/b", false},     // '/' would be a path in sysfs
		{"a:b", false},     // ':' was the alias separator
		{"a b", false},     // isspace
		{"a\tb", false},    //
		{"a\nb", false},    //
		{"eth0.100", true}, // dots are fine: the vlan naming convention
		{"bond%d", true},   // a template is a valid name as it stands
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.ok, netdev.ValidName(c.name))
		})
	}
}

// TestIfindexAllocation: loopback is 1 in every namespace; indexes are
// handed out cyclically per namespace, so a freed index is not reused; a
// veth's peer is registered first and gets the lower index; an explicit
// index is taken as asked and does not move the counter.
//
// Kernel: dev_new_index / dev_index_reserve (net/core/dev.c), veth_newlink.
func TestIfindexAllocation(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	require.Equal(t, netdev.LoopbackIfIndex, e.dev("lo").Index())
	e.add(netdev.Dummy{Name: "a"}, netdev.Dummy{Name: "b"})
	require.Equal(t, netdev.IfIndex(2), e.dev("a").Index())
	require.Equal(t, netdev.IfIndex(3), e.dev("b").Index())

	e.del("a")
	e.add(netdev.Dummy{Name: "c"})
	require.Equal(t, netdev.IfIndex(4), e.dev("c").Index(), "ifindex 2 is free but not reused")

	e.rec.take()
	e.add(netdev.Veth{Name: "v0", Peer: "v1"})
	require.Equal(t, netdev.IfIndex(5), e.dev("v1").Index(), "the peer registers first")
	require.Equal(t, netdev.IfIndex(6), e.dev("v0").Index())
	require.Equal(t, []string{"NETDEV_REGISTER v1", "NETDEV_REGISTER v0"}, e.rec.take())

	e.add(netdev.Dummy{Name: "x", Attrs: netdev.Attrs{Index: 2}})
	require.Equal(t, netdev.IfIndex(2), e.dev("x").Index(), "an explicit free index is granted")
	e.add(netdev.Veth{Name: "w0", Peer: "w1", Attrs: netdev.Attrs{Index: 100}, PeerAttrs: netdev.Attrs{Index: 50}})
	require.Equal(t, netdev.IfIndex(100), e.dev("w0").Index())
	require.Equal(t, netdev.IfIndex(50), e.dev("w1").Index())
	e.add(netdev.Dummy{Name: "y"})
	require.Equal(t, netdev.IfIndex(7), e.dev("y").Index(), "explicit indexes do not move the counter")
	require.Equal(t, []string{"lo", "b", "c", "v1", "v0", "x", "w1", "w0", "y"}, e.names(), "registration order")

	// The counter is per namespace.
	blue := e.table("blue")
	require.Equal(t, netdev.LoopbackIfIndex, blue.Loopback().Index())
	var d []*netdev.Device
	e.do(func() error {
		var err error
		d, err = blue.NewLink(e.t, netdev.Dummy{Name: "a"})
		return err
	})
	require.Equal(t, netdev.IfIndex(2), d[0].Index())
	require.Same(t, d[0], blue.ByIndex(2))
	require.Nil(t, blue.ByName("b"), "namespaces do not share names")
}

// TestNameTemplates: a name with one %d takes the lowest free number; a
// veth without a peer name gets "veth%d".
//
// Kernel: __dev_alloc_name (net/core/dev.c), veth_newlink.
func TestNameTemplates(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	for range 3 {
		e.add(netdev.Dummy{Name: "eth%d"})
	}
	e.del("eth1")
	e.add(netdev.Dummy{Name: "eth%d"}, netdev.Bond{Name: "b%dx"})
	require.Equal(t, []string{"lo", "eth0", "eth2", "eth1", "b0x"}, e.names(), "the lowest free number")

	e.add(netdev.Veth{Name: "p%d"})
	require.Equal(t, "veth0", e.dev("p0").Peer().Name())
	e.add(netdev.Veth{Name: "veth%d"})
	require.Equal(t, "veth2", e.dev("veth1").Peer().Name(), "both ends from one template get distinct numbers")

	// Renaming accepts a template too.
	d := e.dev("eth2")
	e.do(func() error { return d.SetName(e.t, "eth%d") })
	require.Equal(t, "eth3", d.Name())
	require.Same(t, d, e.tbl.ByName("eth3"))
	require.Nil(t, e.tbl.ByName("eth2"))

	// The numbers stop where the name would no longer fit in IFNAMSIZ-1
	// bytes: 13 bytes of prefix leave room for 0..99.
	const tmpl = "abcdefghijklm%d"
	for range 100 {
		e.add(netdev.Dummy{Name: tmpl})
	}
	require.NotNil(t, e.tbl.ByName("abcdefghijklm99"))
	err := e.try(func() error { _, err := e.tbl.NewLink(e.t, netdev.Dummy{Name: tmpl}); return err })
	require.ErrorIs(t, err, syscall.ENFILE)
	require.ErrorContains(t, err, "No free name")
}

// TestGroups: the group is set at creation or later, ByGroup lists a
// group's members in registration order, DelGroup deletes them in one batch.
func TestGroups(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Dummy{Name: "a", Attrs: netdev.Attrs{Group: 5}}, netdev.Dummy{Name: "b"}, netdev.Veth{Name: "c", Peer: "cp", Attrs: netdev.Attrs{Group: 5}})
	b := e.dev("b")
	e.do(func() error { b.SetGroup(e.t, 5); return nil })
	var got []string
	for _, d := range e.tbl.ByGroup(5) {
		got = append(got, d.Name())
	}
	require.Equal(t, []string{"a", "b", "c"}, got, "registration order")
	require.Equal(t, uint32(0), e.dev("cp").Group(), "the peer has its own attributes")

	before := e.w.Counters()
	e.do(func() error { return e.tbl.DelGroup(e.t, 5) })
	d := e.w.Counters().Sub(before)
	require.Equal(t, []string{"lo"}, e.names(), "the veth peer goes with its end")
	require.Equal(t, int64(4), d.Get(sim.DevUnregister))
	require.Equal(t, int64(1), d.Get(sim.RCUBarrier), "one batch, one rcu_barrier")
}

func TestDefaultNames(t *testing.T) {
	// rtnl_newlink_create names a device without IFLA_IFNAME after its kind;
	// veth_newlink names (and registers) the peer first.
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Veth{}, netdev.Dummy{}, netdev.Dummy{})
	peer, main := e.dev("veth0"), e.dev("veth1")
	require.Less(t, peer.Index(), main.Index())
	require.Equal(t, main, peer.Peer())
	e.dev("dummy0")
	e.dev("dummy1")
	require.Equal(t, "noop", peer.Qdisc())
	e.up("veth0")
	require.Equal(t, "noqueue", peer.Qdisc())
	e.down("veth0")
	require.Equal(t, "noqueue", peer.Qdisc(), "the default qdisc stays after down")
}
