package rtnl_test

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// TestConcurrentRulesAndDevices adds and deletes policy rules from many
// goroutines, in many namespaces and several to one namespace, while other
// goroutines create, rename and delete the devices those rules name by
// iif/oif — under both lock policies. Under -race this checks the rules'
// locking (RTNL for every change, or the per-ops lock with RTNL only for
// the first IPv4 rule); afterwards every namespace's rules must be exactly
// what the adders left, attached to the devices that exist under their
// names and detached from the others, and the kernel consistent.
func TestConcurrentRulesAndDevices(t *testing.T) {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		t.Run(cfg.String(), func(t *testing.T) {
			const (
				nets    = 4
				adders  = 3 // per namespace; namespace 0 is shared, the others too
				perAdd  = 40
				devices = 3 // per namespace
			)
			k := rtnl.MustNewKernel(cfg)
			w := k.World()
			boot := w.NewTask("setup")
			var ns []*rtnl.Net
			for i := range nets {
				n, err := k.NewNet(boot, fmt.Sprintf("ns%d", i))
				require.NoError(t, err)
				ns = append(ns, n)
			}

			errs := make(chan error, 10000)
			var wg sync.WaitGroup
			// Rule adders: each adds perAdd rules of its own prefs, for both
			// families, naming the namespace's devices, and deletes every
			// third one again.
			for i := range nets * adders {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n := ns[i%nets]
					h := n.Handle(w.NewTask(fmt.Sprint("rules", i)))
					for j := range perAdd {
						pref := uint32(1000 + i*perAdd + j)
						r := fibrules.Rule{
							Pref: pref, Attrs: fibrules.AttrPriority, Action: fibrules.ActToTable,
							Table: uint32(100 + j%5), IIF: fmt.Sprintf("d%d", j%devices),
						}
						if j%2 == 1 {
							r.IIF, r.OIF = "", fmt.Sprintf("d%d", j%devices)
						}
						for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
							if err := h.RuleAdd(fam, r); err != nil {
								errs <- fmt.Errorf("%v add %d: %w", n, pref, err)
							}
							if j%3 == 0 {
								if err := h.RuleDel(fam, fibrules.Rule{Pref: pref, Attrs: fibrules.AttrPriority}); err != nil {
									errs <- fmt.Errorf("%v del %d: %w", n, pref, err)
								}
							}
						}
					}
				}()
			}
			// Device churn: in each namespace, devices d0..d2 come and go and
			// are renamed to x* and back, so the rules attach and detach.
			for i := range nets {
				wg.Add(1)
				go func() {
					defer wg.Done()
					h := ns[i].Handle(w.NewTask(fmt.Sprint("links", i)))
					for round := range 6 {
						for d := range devices {
							name := fmt.Sprintf("d%d", d)
							if err := h.LinkAdd(netdev.Dummy{Name: name}); err != nil {
								errs <- err
								continue
							}
							if round%2 == 0 {
								// Renamed away and back (a down device can be renamed).
								if err := h.LinkSetName(name, "x"+name); err != nil {
									errs <- err
								}
								if err := h.LinkSetName("x"+name, name); err != nil {
									errs <- err
								}
							}
						}
						if round < 5 {
							for d := range devices {
								if err := h.LinkDel(fmt.Sprintf("d%d", d)); err != nil {
									errs <- err
								}
							}
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			k.Settle(boot)
			require.NoError(t, k.CheckInvariants())

			for i, n := range ns {
				h := n.Handle(boot)
				devs := map[string]netdev.IfIndex{}
				links, err := h.LinkList()
				require.NoError(t, err)
				for _, l := range links {
					devs[l.Name] = l.Index
				}
				for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
					rules, err := h.RuleList(fam)
					require.NoError(t, err)
					var prefs []uint32
					for _, r := range rules {
						if r.Pref < 1000 || r.Pref >= 30000 {
							continue // the default rules
						}
						prefs = append(prefs, r.Pref)
						for name, idx := range map[string]netdev.IfIndex{r.IIF: r.IIFIndex, r.OIF: r.OIFIndex} {
							if name == "" {
								continue
							}
							if want, ok := devs[name]; ok {
								require.Equal(t, want, idx, "%v %v rule %d names %s", n, fam, r.Pref, name)
							} else {
								require.EqualValues(t, -1, idx, "%v rule %d names the missing %s", n, r.Pref, name)
							}
						}
					}
					var want []uint32
					for a := i; a < nets*adders; a += nets {
						for j := range perAdd {
							if j%3 != 0 {
								want = append(want, uint32(1000+a*perAdd+j))
							}
						}
					}
					require.ElementsMatch(t, want, prefs, "%v family %d", n, fam)
				}
			}
			// Locks: before, every rule change held RTNL; after, only the
			// first IPv4 rule of each namespace did.
			var rtnlTaken, opsTaken int64
			for _, n := range ns {
				for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
					rtnlTaken += n.Rules(fam).RTNLAcquires()
					opsTaken += n.Rules(fam).LockAcquires()
				}
			}
			changes := int64(nets * adders * (perAdd + (perAdd+2)/3) * 2)
			if cfg == rtnl.Before {
				require.Equal(t, changes, rtnlTaken)
				require.Zero(t, opsTaken)
			} else {
				// RTNL only for IPv4 adds that found no custom rule yet:
				// once per namespace, more when its first adds race.
				require.GreaterOrEqual(t, rtnlTaken, int64(nets))
				require.LessOrEqual(t, rtnlTaken, int64(nets*adders))
				require.Equal(t, changes, opsTaken)
			}

			// Deleting a missing rule is ENOENT and changes nothing.
			h := ns[0].Handle(boot)
			before, err := h.RuleList(rt.FamilyInet)
			require.NoError(t, err)
			err = h.RuleDel(rt.FamilyInet, fibrules.Rule{Pref: 999, Attrs: fibrules.AttrPriority})
			require.True(t, errors.Is(err, syscall.ENOENT), "%v", err)
			after, err := h.RuleList(rt.FamilyInet)
			require.NoError(t, err)
			require.Equal(t, before, after)
		})
	}
}

// TestRuleEmptyTableBesideRoutes: under LockPerOps an IPv4 to_tbl rule
// without a table, once the namespace has custom rules, takes the lowest
// unused table (fib_empty_table) without RTNL, while route requests
// create tables under RTNL. Under -race this checks that the rule's table
// lookup is safe beside them, as the kernel's RCU lookup is.
func TestRuleEmptyTableBesideRoutes(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	w := k.World()
	rules, routes := k.InitNet().Handle(w.NewTask("rules")), k.InitNet().Handle(w.NewTask("routes"))
	require.NoError(t, routes.LinkAdd(netdev.Dummy{Name: "d0"}))
	require.NoError(t, routes.LinkSetUp("d0"))
	// The first rule unmerges the FIB under RTNL; the others take none.
	require.NoError(t, rules.RuleAdd(rt.FamilyInet, fibrules.Rule{Pref: 5, Attrs: fibrules.AttrPriority, Action: fibrules.ActToTable, Table: 5000}))
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range n {
			if err := rules.RuleAdd(rt.FamilyInet, fibrules.Rule{Pref: uint32(10 + i), Attrs: fibrules.AttrPriority, Action: fibrules.ActToTable}); err != nil {
				errs <- err
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := range n {
			if err := routes.RouteAdd(rtnl.Route{Table: uint32(1000 + i), Dst: netip.MustParsePrefix("10.0.0.0/8"), Dev: "d0"}); err != nil {
				errs <- err
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Zero(t, k.InitNet().Rules(rt.FamilyInet).RTNLAcquires()-1, "only the first rule took RTNL")
	// Every rule got a table of its own.
	seen := map[uint32]bool{}
	rs, err := rules.RuleList(rt.FamilyInet)
	require.NoError(t, err)
	for _, r := range rs {
		if r.Pref >= 10 && r.Pref < 10+n {
			require.False(t, seen[r.Table], "table %d twice", r.Table)
			seen[r.Table] = true
		}
	}
	require.Len(t, seen, n)
	require.NoError(t, k.CheckInvariants())
}
