package nexthop

import (
	"strings"
	"testing"

	"github.com/netsimlab/netsim/sim"
)

type checkUser struct{ dead bool }

func (u *checkUser) MarkDead() { u.dead = true }

// TestCheckInvariantsCatches breaks one invariant at a time and expects
// CheckInvariants to report it.
func TestCheckInvariantsCatches(t *testing.T) {
	task := sim.MustNewWorld(sim.Options{}).NewTask("t")
	build := func() *Table {
		tb := NewTable(FlushDeferred)
		for _, c := range []Config{
			{ID: 1, Blackhole: true},
			{ID: 2, Blackhole: true},
			{ID: 3, Group: []GroupMember{{ID: 1}}},
			{ID: 4, Group: []GroupMember{{ID: 2}}},
		} {
			if _, err := tb.Add(task, c); err != nil {
				t.Fatal(err)
			}
		}
		tb.Get(3).AddFIBUser(&checkUser{})
		return tb
	}
	for _, tc := range []struct {
		name    string
		breakIt func(tb *Table)
		want    string
	}{
		{"dense index", func(tb *Table) { tb.dense[2] = nil }, "dense index"},
		{"dense extra", func(tb *Table) { tb.dense[7] = tb.Get(1) }, "dense index"},
		{"dead in tree", func(tb *Table) { tb.Get(1).dead = true }, "dead"},
		{"device hash", func(tb *Table) { tb.devhashDel(tb.Get(1)) }, "hash"},
		{"hash bucket", func(tb *Table) { tb.Get(1).info.ifindex = 7 }, "ifindex"},
		{"hash slot", func(tb *Table) { tb.Get(1).hpos++ }, "slot"},
		{"hash holes", func(tb *Table) { tb.devhash[devHashFn(tb.Get(1).info.ifindex)].holes++ }, "empty slots"},
		{"member list", func(tb *Table) { tb.Get(1).grpList.remove(tb.Get(3).grp.entries[0]) }, "list of groups"},
		{"entry parent", func(tb *Table) { tb.Get(3).grp.entries[0].parent = tb.Get(4) }, "group 4"},
		{"weight", func(tb *Table) { tb.Get(3).grp.entries[0].weight = 0 }, "weight"},
		{"empty group", func(tb *Table) {
			tb.Get(1).grpList.remove(tb.Get(3).grp.entries[0])
			tb.Get(3).grp.entries = nil
		}, "no members"},
		{"user count", func(tb *Table) { tb.Get(3).fiList.n++ }, "users"},
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
