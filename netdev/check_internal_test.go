package netdev

import (
	"strings"
	"testing"

	"github.com/netsimlab/netsim/sim"
)

// TestCheckInvariantsCatches breaks one invariant at a time and expects
// CheckInvariants to report it.
func TestCheckInvariantsCatches(t *testing.T) {
	build := func() *Table {
		w := sim.MustNewWorld(sim.Options{})
		task, rtnl := w.NewTask("t"), w.NewMutex("RTNL")
		s, err := NewStack(w, rtnl, Config{})
		if err != nil {
			t.Fatal(err)
		}
		rtnl.Lock(task)
		defer rtnl.Unlock(task)
		tb, err := s.NewTable(task, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range []LinkSpec{Dummy{Name: "d0"}, Bond{Name: "b0"}, Veth{Name: "va", Peer: "vb"},
			Bridge{Name: "br0"}, Dummy{Name: "p1"}, Dummy{Name: "p2"}} {
			if _, err := tb.NewLink(task, spec); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tb.NewLink(task, Vlan{Name: "vl5", Link: "d0", ID: 5}); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"d0", "vl5"} {
			if err := tb.ByName(n).SetUp(task, true); err != nil {
				t.Fatal(err)
			}
		}
		if err := tb.ByName("va").SetMaster(task, tb.ByName("b0")); err != nil {
			t.Fatal(err)
		}
		// Bridge ports: in the bridge's port list, not among its slaves.
		for _, p := range []string{"p1", "p2"} {
			if err := tb.ByName(p).SetMaster(task, tb.ByName("br0")); err != nil {
				t.Fatal(err)
			}
		}
		if err := tb.ByName("vl5").UCAdd(task, MAC{2, 0, 0, 0, 0, 9}); err != nil {
			t.Fatal(err)
		}
		w.Settle()
		return tb
	}
	for _, tc := range []struct {
		name    string
		breakIt func(tb *Table)
		want    string
	}{
		{"name map", func(tb *Table) { delete(tb.byName, "d0") }, "not under its name"}, // +checklocksignore: a deliberate corruption
		{"index map", func(tb *Table) { tb.byIndex[99] = tb.ByName("d0") }, "by ifindex"},
		{"count", func(tb *Table) { tb.count++ }, "count"},
		{"ipv6 address count", func(tb *Table) { tb.inet6Addrs-- }, "IPv6 addresses, counted"},
		{"listed mark", func(tb *Table) { tb.ByName("d0").listed = false }, "not marked so"},
		{"upper link", func(tb *Table) { tb.ByName("d0").uppers = nil }, "upper"},
		{"slave link", func(tb *Table) { tb.ByName("b0").slaves = nil }, "slaves"},
		{"peer link", func(tb *Table) { tb.ByName("vb").peer = tb.ByName("d0") }, "peer"},
		{"bridge port list", func(tb *Table) { tb.ByName("br0").priv.bridge.ports = tb.ByName("br0").priv.bridge.ports[:1] }, "not once among bridge br0's ports"},
		{"bridge port listed twice", func(tb *Table) {
			b := tb.ByName("br0").priv.bridge
			b.ports = append(b.ports, b.ports[0])
		}, "listed twice"},
		{"bridge port as slave", func(tb *Table) { tb.ByName("br0").slaves = []*Device{tb.ByName("p1")} }, "slaves"},
		{"bridge port state", func(tb *Table) { tb.ByName("p2").priv.brPort = nil }, "no port state of this bridge"},
		{"bridge port of another", func(tb *Table) { tb.ByName("p2").priv.brPort.br = tb.ByName("b0") }, "no port state of this bridge"},
		{"bridge port number", func(tb *Table) { tb.ByName("p2").priv.brPort.no = tb.ByName("p1").priv.brPort.no }, "port number"},
		{"bridge port's master", func(tb *Table) { tb.ByName("p1").master = nil }, "has master"},
		{"refcount", func(tb *Table) { tb.ByName("d0").Hold() }, "refcount"},
		{"address list", func(tb *Table) { tb.ByName("d0").uc.Flush(nil); tb.ByName("d0").uc = nil }, "no uc list"},
		{"ipv6 route references", func(tb *Table) { tb.fib6 = oneRefFIB{d: tb.ByName("d0")} }, "refcount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := build()
			if err := tb.CheckInvariants(); err != nil {
				t.Fatalf("before breaking: %v", err)
			}
			tc.breakIt(tb)
			err := tb.CheckInvariants()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckInvariants = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// oneRefFIB claims a device reference its device does not have.
type oneRefFIB struct {
	noIPv6FIB
	d *Device
}

func (f oneRefFIB) DevRefs(d *Device) int64 {
	if d == f.d {
		return 1
	}
	return 0
}
