package neigh_test

import (
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"

	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// modelEntry is the reference twin's entry: what a table must hold.
type modelEntry struct {
	state neigh.State
	flags neigh.Flags
}

type modelKey struct {
	dev  *netdev.Device
	addr netip.Addr
}

// TestTableAgainstModel runs seeded random creates, administrative
// updates, removals, device flushes and forced gcs on a table and on a map
// of (device, address) to state and flags, and after every step compares
// them: the entries, their creation order in Walk, Len and GCEntries
// (the entries neither permanent nor extern_learn).
func TestTableAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, seed))
		w := sim.MustNewWorld(sim.Options{})
		rtnl := w.NewMutex("RTNL")
		s, _ := netdev.NewStack(w, rtnl, netdev.Config{})
		task := w.NewTask("ip")
		rtnl.Lock(task)
		tb, _ := s.NewTable(task, "")
		_, _ = tb.NewLink(task, netdev.Veth{Name: "a0", Peer: "a1"})
		devs := []*netdev.Device{tb.ByName("a0"), tb.ByName("a1")}
		arp := neigh.NewARP(nil)
		arp.GCThresh2, arp.GCThresh3 = 1000, 1000
		model := map[modelKey]*modelEntry{}
		var order []modelKey
		states := []neigh.State{neigh.StatePermanent, neigh.StateStale, neigh.StateNone, neigh.StateFailed, neigh.StateIncomplete, neigh.StateNoARP}
		var last []string
		for step := range 400 {
			dev := devs[rng.IntN(2)]
			addr := netip.AddrFrom4([4]byte{10, 0, 0, byte(1 + rng.IntN(12))})
			k := modelKey{dev, addr}
			switch op := rng.IntN(10); {
			case op < 5: // neigh_add with NLM_F_CREATE|NLM_F_REPLACE and an address
				st := states[rng.IntN(len(states))]
				var f neigh.Flags
				if rng.IntN(4) == 0 {
					f = neigh.FlagExtLearned
				}
				e := arp.Lookup(task, addr, dev)
				if e == nil {
					var err error
					e, err = arp.Create(task, addr, dev, rt.TypeUnicast, f, st&neigh.StatePermanent != 0 || f != 0)
					if err != nil {
						t.Fatalf("seed %d step %d: create: %v", seed, step, err)
					}
					model[k] = &modelEntry{}
					order = append(slices.DeleteFunc(order, func(x modelKey) bool { return x == k }), k)
				}
				flags := neigh.UpdateAdmin | neigh.UpdateOverride
				if f != 0 {
					flags |= neigh.UpdateExtLearned
				}
				if err := arp.Update(task, e, netdev.MAC{2, 0, 0, 0, 0, addr.As4()[3]}, true, st, flags); err != nil {
					t.Fatalf("seed %d step %d: update: %v", seed, step, err)
				}
				model[k].state, model[k].flags = st, f
				last = append(last, "add "+addr.String()+" "+dev.Name())
			case op < 7: // neigh_delete
				if e := arp.Lookup(task, addr, dev); e != nil {
					arp.Remove(task, e)
					delete(model, k)
				}
				last = append(last, "del "+addr.String()+" "+dev.Name())
			case op < 8: // carrier down: permanent entries stay
				arp.Flush(task, dev, true, false)
				for mk, me := range model {
					if mk.dev == dev && me.state&neigh.StatePermanent == 0 {
						delete(model, mk)
					}
				}
				last = append(last, "carrier down "+dev.Name())
			case op < 9: // device down: every entry goes
				arp.Flush(task, dev, false, false)
				for mk := range model {
					if mk.dev == dev {
						delete(model, mk)
					}
				}
				last = append(last, "down "+dev.Name())
			default: // forced gc six seconds on: every entry not exempt goes
				task.Sleep(6e9)
				arp.GCThresh2 = 0
				arp.ForcedGC(task)
				arp.GCThresh2 = 1000
				for mk, me := range model {
					if me.state&neigh.StatePermanent == 0 && me.flags&neigh.FlagExtLearned == 0 {
						delete(model, mk)
					}
				}
				last = append(last, "forced gc")
			}
			// Compare.
			var want []modelKey
			gc := 0
			for _, ok := range order {
				if me, live := model[ok]; live {
					want = append(want, ok)
					if me.state&neigh.StatePermanent == 0 && me.flags&neigh.FlagExtLearned == 0 {
						gc++
					}
				}
			}
			var got []modelKey
			arp.Walk(task, 0, func(e *neigh.Entry) bool {
				got = append(got, modelKey{e.Dev, e.Addr})
				me := model[modelKey{e.Dev, e.Addr}]
				if me == nil || me.state != e.State || me.flags != e.Flags {
					t.Fatalf("seed %d step %d: entry %s dev %s state %#x flags %#x, model %+v; last ops %v", seed, step, e.Addr, e.Dev.Name(), e.State, e.Flags, me, tail(last))
				}
				return true
			})
			if len(got) != len(want) || arp.Len() != len(want) || arp.GCEntries() != gc {
				t.Fatalf("seed %d step %d: %d walked, Len %d, GCEntries %d; model %d entries, %d not exempt; last ops %v", seed, step, len(got), arp.Len(), arp.GCEntries(), len(want), gc, tail(last))
			}
			for _, d := range devs {
				n := 0
				for _, ok := range want {
					if ok.dev == d {
						n++
					}
				}
				if arp.DevEntries(d) != n {
					t.Fatalf("seed %d step %d: DevEntries(%s) %d, model %d; last ops %v", seed, step, d.Name(), arp.DevEntries(d), n, tail(last))
				}
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("seed %d step %d: walk order differs at %d; last ops %v", seed, step, i, tail(last))
				}
			}
		}
		rtnl.Unlock(task)
	}
}

func tail(s []string) []string { return s[max(0, len(s)-8):] }
