package rtnl_test

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// TestDeletedNamespaceLivesWhileHeld: `ip netns del` drops only the
// name's reference (put_net). A namespace with an open Handle stays alive
// and fully usable through it, unlisted, its name free for a new
// namespace; cleanup_net runs when the last Handle closes, and a Handle
// made of the dismantled namespace afterwards fails.
func TestDeletedNamespaceLivesWhileHeld(t *testing.T) {
	r := newRig(t, rtnl.After)
	red, err := r.k.NewNet(r.t, "red")
	r.ok(err)
	a, b := red.Handle(r.t), red.Handle(r.t)
	r.ok(a.LinkAdd(netdev.Dummy{Name: "d0"}))
	d0 := red.Devices().ByName("d0")

	r.ok(r.k.DelNet(r.t, "red"))
	require.Nil(t, r.k.Net("red"), "the name goes at once")
	require.Empty(t, r.k.NetNames())
	r.settle()
	// Both Handles still work: the namespace was not torn down under them.
	r.ok(a.LinkSetUp("d0"))
	r.ok(a.AddrAdd("d0", netip.MustParsePrefix("192.0.2.1/24")))
	r.ok(b.RouteAdd(rtnl.Route{Dst: netip.MustParsePrefix("198.51.100.0/24"), Gateway: netip.MustParseAddr("192.0.2.2")}))
	r.ok(b.RuleAdd(rt.FamilyInet, fibrules.Rule{Pref: 100, Attrs: fibrules.AttrPriority, Action: fibrules.ActToTable, Table: 10}))
	require.Equal(t, []string{"lo", "d0"}, linkNames(t, a))
	require.True(t, d0.Registered())

	// The name is free: a new "red" is another namespace.
	red2, err := r.k.NewNet(r.t, "red")
	r.ok(err)
	require.NotSame(t, red, red2)
	require.Equal(t, []string{"lo"}, linkNames(t, red2.Handle(r.t)))
	require.NoError(t, r.k.CheckInvariants(), "the unlisted namespace is checked too")

	// The first Close leaves b's reference: still alive.
	r.ok(a.Close())
	r.ok(a.Close()) // idempotent
	r.settle()
	require.True(t, d0.Registered())
	_, err = b.LinkList()
	r.ok(err)

	// The last Close queues cleanup_net.
	r.ok(b.Close())
	r.settle()
	require.False(t, d0.Registered(), "cleanup_net unregistered the devices")
	require.Zero(t, red.Devices().Len())
	require.NoError(t, r.k.CheckInvariants())

	// A closed Handle fails as a closed socket does; a Handle made of the
	// dismantled namespace fails as before.
	err = a.LinkSetUp("lo")
	require.ErrorIs(t, err, syscall.EBADF)
	require.ErrorIs(t, b.RuleAdd(rt.FamilyInet6, fibrules.Rule{Table: 5}), syscall.EBADF)
	_, err = b.RuleList(rt.FamilyInet)
	require.ErrorIs(t, err, syscall.EBADF)
	late := red.Handle(r.t)
	err = late.LinkAdd(netdev.Dummy{Name: "d1"})
	require.ErrorIs(t, err, syscall.ENOENT)
	require.ErrorContains(t, err, `Network namespace "red" has been deleted`)
	require.ErrorIs(t, late.RuleAdd(rt.FamilyInet, fibrules.Rule{Table: 5}), syscall.ENOENT)
	r.ok(late.Close())
	// The new "red" is untouched.
	require.Same(t, red2, r.k.Net("red"))
	require.Equal(t, []string{"lo"}, linkNames(t, red2.Handle(r.t)))
}

// TestNamespaceDeletedWithNothingOpen: with no Handle open, DelNet queues
// the cleanup at once, as before references were counted; a Handle closed
// before the deletion does not hold the namespace.
func TestNamespaceDeletedWithNothingOpen(t *testing.T) {
	r := newRig(t, rtnl.After)
	n, err := r.k.NewNet(r.t, "blue")
	r.ok(err)
	h := n.Handle(r.t)
	r.ok(h.LinkAdd(netdev.Dummy{Name: "d0"}))
	r.ok(h.Close())
	d0 := n.Devices().ByName("d0")
	r.ok(r.k.DelNet(r.t, "blue"))
	_, err = r.h.LinkList() // a request runs the cleanup due by now
	r.ok(err)
	require.False(t, d0.Registered())
	require.Zero(t, n.Devices().Len())
}

// TestNamespaceChurnRace creates and deletes namespaces while goroutines,
// each with its own task and Handle, make link, address, route and rule
// requests in them — the rule requests without RTNL under LockPerOps,
// with to_tbl rules of table 0 (fib_empty_table) while routes create
// tables. Under -race it checks that nothing a rule request reads races
// with the namespace's deletion or the RTNL requests; every request
// succeeds or fails cleanly, and the kernel is consistent at the end.
func TestNamespaceChurnRace(t *testing.T) {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		t.Run(cfg.String(), func(t *testing.T) {
			k := rtnl.MustNewKernel(cfg)
			w := k.World()
			boot := w.NewTask("netns")
			const rounds, workers = 12, 3
			for round := range rounds {
				name := fmt.Sprintf("ns%d", round)
				n, err := k.NewNet(boot, name)
				require.NoError(t, err)
				var wg sync.WaitGroup
				start := make(chan struct{})
				errs := make(chan error, workers)
				for i := range workers {
					h := n.Handle(w.NewTask(fmt.Sprintf("w%d.%d", round, i)))
					wg.Add(1)
					go func() {
						defer wg.Done()
						defer h.Close()
						<-start
						errs <- churnWorker(h, i)
					}()
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					del := w.NewTask("del" + name)
					<-start
					if err := k.DelNet(del, name); err != nil {
						errs <- err
					}
				}()
				close(start)
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err)
				}
			}
			k.Settle(boot)
			require.NoError(t, k.CheckInvariants())
			require.Empty(t, k.NetNames())
		})
	}
}

// churnWorker makes requests of every kind through h; it fails only on an
// error no request should give.
func churnWorker(h *rtnl.Handle, i int) error {
	dev := fmt.Sprintf("d%d", i)
	for j := range 15 {
		pref := uint32(1000 + 100*i + j)
		steps := []func() error{
			func() error { return h.LinkAdd(netdev.Dummy{Name: dev}) },
			func() error { return h.LinkSetUp(dev) },
			func() error {
				return h.AddrAdd(dev, netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i), byte(j), 1}), 24))
			},
			func() error {
				return h.RouteAdd(rtnl.Route{Table: uint32(20 + j), Dst: netip.MustParsePrefix("198.51.100.0/24"), Dev: dev})
			},
			// Table 0: the rule takes the lowest unused table (fib_empty_table).
			func() error {
				return h.RuleAdd(rt.FamilyInet, fibrules.Rule{Pref: pref, Attrs: fibrules.AttrPriority, Action: fibrules.ActToTable, IIF: dev})
			},
			func() error {
				return h.RuleAdd(rt.FamilyInet6, fibrules.Rule{Pref: pref, Attrs: fibrules.AttrPriority, Action: fibrules.ActToTable, Table: uint32(30 + j), OIF: dev})
			},
			func() error { _, err := h.RuleList(rt.FamilyInet); return err },
			func() error {
				return h.RuleDel(rt.FamilyInet6, fibrules.Rule{Pref: pref, Attrs: fibrules.AttrPriority})
			},
			func() error { _, err := h.RouteList(rt.FamilyUnspec, fib.TableMain); return err },
			func() error { return h.LinkDel(dev) },
		}
		for _, step := range steps {
			if err := step(); err != nil && !benignChurnError(err) {
				return fmt.Errorf("%s: %w", h.Net(), err)
			}
		}
	}
	return nil
}

// benignChurnError: the errors a request may meet when the worker's own
// earlier step failed. A namespace deleted under the worker's open Handle
// is not one of them.
func benignChurnError(err error) bool {
	if strings.Contains(err.Error(), "has been deleted") {
		return false
	}
	for _, e := range []syscall.Errno{syscall.ENETDOWN, syscall.ENODEV, syscall.EEXIST, syscall.ENOENT} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
