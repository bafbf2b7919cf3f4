package fibrules

import (
	"net/netip"
	"testing"
	"unsafe"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// TestEntrySmall pins the size of a rule in the list: seed 003 keeps 4096 ×
// 1024 of them per run. A rule that sets no selector shares optsNone and
// costs one allocation, its entry; a rule that sets one has its own
// options, and both dump as they were given.
func TestEntrySmall(t *testing.T) {
	if s := unsafe.Sizeof(entry{}); s > 64 {
		t.Fatalf("entry is %d bytes, want at most 64", s)
	}
	w := sim.MustNewWorld(sim.Options{})
	task, rtnl := w.NewTask("t"), w.NewMutex("RTNL")
	o, err := NewOps(w, Config{Family: rt.FamilyInet, Policy: LockPerOps})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Add(task, rtnl, Rule{Table: 1, Action: ActToTable}, true); err != nil {
		t.Fatal(err) // the first IPv4 rule unmerges: out of the measured loop
	}
	tbl := uint32(1)
	allocs := testing.AllocsPerRun(1000, func() {
		tbl++
		if err := o.Add(task, rtnl, Rule{Table: tbl, Action: ActToTable}, true); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("a `from all` rule add: %v allocations, want 1 (its entry)", allocs)
	}
	from := Rule{Table: 7, Action: ActToTable, Src: netip.MustParsePrefix("10.0.0.0/8"), IIF: "eth0",
		Pref: 5, Attrs: AttrPriority}
	if err := o.Add(task, rtnl, from, true); err != nil {
		t.Fatal(err)
	}
	shared := 0
	for x := o.first(); x != nil; x = x.next.Load() {
		if x.opts == optsNone {
			shared++
		} else if x.pref != 5 {
			t.Errorf("rule %d has options of its own", x.pref)
		}
	}
	if want := o.Len() - 1; shared != want {
		t.Errorf("%d rules share optsNone, want %d", shared, want)
	}
	got := o.Rules()[1]
	if got.Src != from.Src || got.IIF != "eth0" || got.IIFIndex != -1 || got.Table != 7 || got.Pref != 5 ||
		got.SuppressPrefixLen != -1 || got.UID != uidUnset || got.Flags != FlagIIFDetached {
		t.Errorf("rule 5 dumps as %+v", got)
	}
	if err := o.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
