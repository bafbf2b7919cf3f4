package fibrules_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// TestCountedWalksMatchRealWalks applies the same random adds (with
// NLM_F_EXCL, as `ip rule add`) and deletes to an ops that walks and one
// that counts, and requires the same errors, rule lists and rules scanned.
func TestCountedWalksMatchRealWalks(t *testing.T) {
	for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
		for seed := range uint64(5) {
			t.Run(fmt.Sprintf("%v/seed%d", fam, seed), func(t *testing.T) {
				var ops [2]*fibrules.Ops
				var tasks [2]*sim.Task
				var rtnl [2]*sim.Mutex
				for i, counted := range []bool{false, true} {
					w := sim.MustNewWorld(sim.Options{})
					var err error
					ops[i], err = fibrules.NewOps(w, fibrules.Config{Family: fam, CountedWalks: counted})
					require.NoError(t, err)
					tasks[i], rtnl[i] = w.NewTask("ip"), w.NewMutex("RTNL")
				}
				r := rand.New(rand.NewPCG(seed, 3))
				for step := range 3000 {
					rule := fibrules.Rule{Table: uint32(1 + r.IntN(20)), Action: fibrules.ActToTable}
					if r.IntN(3) > 0 {
						rule.Attrs |= fibrules.AttrPriority
						rule.Pref = uint32(r.IntN(50))
					}
					del := r.IntN(4) == 0
					var errs [2]error
					for i := range ops {
						if del {
							errs[i] = ops[i].Del(tasks[i], rtnl[i], rule)
						} else {
							errs[i] = ops[i].Add(tasks[i], rtnl[i], rule, true)
						}
					}
					require.Equal(t, errs[0], errs[1], "step %d (seed %d)", step, seed)
					require.Equal(t, tasks[0].Counters().Get(sim.RuleScan), tasks[1].Counters().Get(sim.RuleScan), "step %d (seed %d)", step, seed)
				}
				require.Equal(t, ops[0].Rules(), ops[1].Rules())
				require.Equal(t, tasks[0].Now(), tasks[1].Now())
			})
		}
	}
}

// TestRuleExistsScansEveryRule pins seed 003's cost: each `rule add from
// all table N` (a new pref each time) compares every rule already there.
func TestRuleExistsScansEveryRule(t *testing.T) {
	for _, counted := range []bool{false, true} {
		w := sim.MustNewWorld(sim.Options{})
		o, err := fibrules.NewOps(w, fibrules.Config{Family: rt.FamilyInet, CountedWalks: counted})
		require.NoError(t, err)
		task := w.NewTask("ip")
		const n = 1024
		for i := 1; i <= n; i++ {
			require.NoError(t, o.Add(task, w.NewMutex("RTNL"), fibrules.Rule{Table: uint32(i), Action: fibrules.ActToTable}, true))
		}
		// 3 default rules: the k-th add (k from 0) scans 3+k rules.
		require.EqualValues(t, n*3+n*(n-1)/2, task.Counters().Get(sim.RuleScan))
		require.Equal(t, n+3, o.Len())
	}
}
