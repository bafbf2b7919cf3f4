package neigh_test

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// printer prints the table's notifications.
type printer struct{}

func (printer) NeighMsg(_ *sim.Task, e *neigh.Entry, del, _ bool) {
	what := "RTM_NEWNEIGH"
	if del {
		what = "RTM_DELNEIGH"
	}
	fmt.Printf("%s %s dev %s state %#x\n", what, e.Addr, e.Dev.Name(), uint16(e.State))
}

// Using package neigh on its own, as package rtnl's neigh_add does: an
// entry made, then given its address and state by an administrative
// update; a dummy device has no ARP, so its entries start in NUD_NOARP
// with the device's own address; an update without an address of an entry
// that has none is refused; a carrier loss keeps the permanent entries.
func Example() {
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	s, _ := netdev.NewStack(w, rtnl, netdev.Config{})
	t := w.NewTask("ip")
	rtnl.Lock(t)
	defer rtnl.Unlock(t)
	tbl, _ := s.NewTable(t, "")
	_, _ = tbl.NewLink(t, netdev.Veth{Name: "veth0", Peer: "veth1"})
	_, _ = tbl.NewLink(t, netdev.Dummy{Name: "dummy0"})
	veth, dummy := tbl.ByName("veth0"), tbl.ByName("dummy0")

	arp := neigh.NewARP(printer{})
	admin := neigh.UpdateAdmin | neigh.UpdateOverride | neigh.UpdateOverrideIsRouter
	e, _ := arp.Create(t, netip.MustParseAddr("10.0.0.2"), veth, rt.TypeUnicast, 0, true)
	_ = arp.Update(t, e, netdev.MAC{2, 0, 0, 0, 0, 2}, true, neigh.StatePermanent, admin)
	e, _ = arp.Create(t, netip.MustParseAddr("10.0.0.3"), veth, rt.TypeUnicast, 0, false)
	err := arp.Update(t, e, netdev.MAC{}, false, neigh.StateStale, admin)
	fmt.Println(errors.Is(err, syscall.EINVAL), err)
	e, _ = arp.Create(t, netip.MustParseAddr("10.0.0.4"), dummy, rt.TypeUnicast, 0, false)
	fmt.Printf("%s on dummy0: state %#x, dummy0's address: %v\n", e.Addr, uint16(e.State), e.LLAddr == dummy.Addr())
	arp.Flush(t, veth, true, true) // neigh_carrier_down
	fmt.Println(arp.Len(), "entries,", arp.GCEntries(), "not exempt from gc")
	// Output:
	// RTM_NEWNEIGH 10.0.0.2 dev veth0 state 0x80
	// true invalid argument: No link layer address given
	// 10.0.0.4 on dummy0: state 0x40, dummy0's address: true
	// RTM_DELNEIGH 10.0.0.3 dev veth0 state 0x0
	// 2 entries, 1 not exempt from gc
}
