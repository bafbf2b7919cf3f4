package fibrules

import (
	"strings"
	"testing"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// TestCheckInvariantsCatches breaks one invariant at a time and expects
// CheckInvariants to report it.
func TestCheckInvariantsCatches(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{})
	task, rtnl := w.NewTask("t"), w.NewMutex("RTNL")
	build := func() *Ops {
		o, err := NewOps(w, Config{Family: rt.FamilyInet6})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Rule{
			{Pref: 10, Attrs: AttrPriority, Action: ActGoto, Goto: 20}, // resolved below
			{Pref: 15, Attrs: AttrPriority, Action: ActGoto, Goto: 30}, // unresolved
			{Pref: 20, Attrs: AttrPriority, Action: ActToTable, Table: 100, IIF: "eth9"},
			// FRA_IIFNAME "": valid, bound to no device (ifindex -1).
			{Pref: 25, Attrs: AttrPriority | AttrIIFName, Action: ActToTable, Table: 100},
		} {
			if err := o.Add(task, rtnl, r, true); err != nil {
				t.Fatal(err)
			}
		}
		return o
	}
	rule := func(o *Ops, pref uint32) *entry {
		for x := o.first(); x != nil; x = x.next.Load() {
			if x.pref == pref {
				return x
			}
		}
		t.Fatalf("no rule %d", pref)
		return nil
	}
	for _, tc := range []struct {
		name    string
		breakIt func(o *Ops)
		want    string
	}{
		{"unresolved count", func(o *Ops) { o.unresolved++ }, "unresolved"},
		{"goto count", func(o *Ops) { o.nrGoto-- }, "gotos"},
		{"target lost", func(o *Ops) { rule(o, 10).ctarget.Store(nil) }, "unresolved, but a rule has that pref"},
		{"wrong target", func(o *Ops) { rule(o, 10).ctarget.Store(rule(o, 0)) }, "resolved to pref 0"},
		{"target gone", func(o *Ops) { rule(o, 10).ctarget.Store(&entry{opts: optsNone, pref: 20}) }, "not in the list"},
		{"order", func(o *Ops) { rule(o, 15).pref = 5 }, "after pref"},
		{"count", func(o *Ops) { o.n.Add(1) }, "count"},
		{"attached to nothing", func(o *Ops) { rule(o, 20).iif.Store(3) }, "want -1"},
		{"empty name attached", func(o *Ops) { rule(o, 25).iif.Store(0) }, `iif "": ifindex 0, want -1`},
		{"unnamed detached", func(o *Ops) { rule(o, 20).oif.Store(-1) }, "no oif name given"},
		{"unnamed attached", func(o *Ops) { rule(o, 25).oif.Store(2) }, "no oif name given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := build()
			if err := o.CheckInvariants(); err != nil {
				t.Fatalf("before breaking: %v", err)
			}
			tc.breakIt(o)
			err := o.CheckInvariants()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckInvariants = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
