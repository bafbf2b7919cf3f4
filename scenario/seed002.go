// Seed 002, "net: use exponential backoff in netdev_wait_allrefs": dummies
// deleted one by one while their anycast routes' chained RCU callbacks
// hold a reference (netdev_wait_allrefs, net/core/dev.c).

package scenario

import (
	"fmt"
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Seed002Params sizes seed 002's experiment. Zero fields take the seed's
// values.
type Seed002Params struct {
	Interfaces int // dummy interfaces created and deleted (seed: 100)
	// Machine is the profile the run's costs come from: a shipped
	// profile's name or a profile file; "" is seed 002's machine (seed002).
	Machine string
	Costs   *sim.Costs // cost model, overriding Machine's; nil: Machine's
	Tracer  sim.Tracer // receives the run's trace events; nil: no tracing
}

// Seed002 runs the script of seed 002 ("net: use exponential backoff in
// netdev_wait_allrefs", measured on 5.4): in a new namespace with IPv6
// forwarding on by default, p.Interfaces dummy interfaces are created, brought
// up and given an address 2021:i::1/120 each, then deleted one by one, every
// command an `ip netns exec NS ip ...` process. The script's real time is the
// phase "script"; "create" and "delete" are its two loops.
//
// Each deletion's rcu_barrier (netdev_run_todo) absorbs the first of the two
// chained RCU callbacks that release the device reference held by the
// anycast route of 2021:i:: (aca_free_rcu → fib6_info_destroy_rcu), not the
// second, so netdev_wait_allrefs has to poll once: 250 ms before the patch,
// 16 ms after.
func Seed002(cfg rtnl.Config, p Seed002Params) (*Report, error) {
	if p.Interfaces == 0 {
		p.Interfaces = 100
	}
	if p.Interfaces < 0 || p.Interfaces > 65536 {
		return nil, fmt.Errorf("seed 002: interfaces must be 1..65536, not %d", p.Interfaces)
	}
	costs, cpus, err := runMachine("002", p.Machine, p.Costs, 0, 0)
	if err != nil {
		return nil, err
	}
	k, w, err := newSeedKernel(cfg, costs, cpus, p.Tracer)
	if err != nil {
		return nil, err
	}
	t := w.NewTask("bash")
	rc := newRecorder("002", k, t)
	sh := &shell{t: t}
	var h *rtnl.Handle
	create := func() error {
		// ip netns add; ip netns exec NS ip link set lo up; two sysctls.
		if err := sh.ip(func() error {
			n, err := k.NewNet(t, "dummy-ns")
			h = n.Handle(t)
			return err
		}); err != nil {
			return err
		}
		if err := sh.netnsExec(func() error { return h.LinkSetUp("lo") }); err != nil {
			return err
		}
		for _, kv := range [][2]string{{"net.ipv6.conf.default.disable_ipv6", "0"}, {"net.ipv6.conf.default.forwarding", "1"}} {
			if err := sh.netnsExec(func() error { return h.Sysctl(kv[0], kv[1]) }); err != nil {
				return err
			}
		}
		for i := range p.Interfaces {
			name := fmt.Sprintf("eth%d", i)
			if err := sh.netnsExec(func() error { return h.LinkAdd(netdev.Dummy{Name: name}) }); err != nil {
				return err
			}
			if err := sh.netnsExec(func() error { return h.LinkSetUp(name) }); err != nil {
				return err
			}
			a := netip.MustParsePrefix(fmt.Sprintf("2021:%x::1/120", i))
			if err := sh.netnsExec(func() error { return h.AddrAdd(name, a) }); err != nil {
				return err
			}
		}
		return nil
	}
	del := func() error {
		for i := range p.Interfaces {
			name := fmt.Sprintf("eth%d", i)
			if err := sh.netnsExec(func() error { return h.LinkDel(name) }); err != nil {
				return err
			}
		}
		// The ip netns exec processes have exited: nothing holds the
		// namespace but its name. ip netns del returns at once; the
		// namespace is dismantled later.
		_ = h.Close()
		return sh.ip(func() error { return k.DelNet(t, "dummy-ns") })
	}
	if err := rc.phase("create", create); err != nil {
		return nil, err
	}
	if err := rc.phase("delete", del); err != nil {
		return nil, err
	}
	rc.total("script")
	return rc.done(), nil
}

// shell charges the user-space cost of the processes a shell script starts
// around each kernel request.
type shell struct{ t *sim.Task }

// ip runs fn as the request of one `ip` (or sysctl) process.
func (s *shell) ip(fn func() error) error {
	s.t.Charge(sim.IPExec, 1)
	return fn()
}

// netnsExec runs fn as the request of `ip netns exec NS ip ...`: an `ip`
// process that enters the namespace and runs the inner `ip`.
func (s *shell) netnsExec(fn func() error) error {
	s.t.Charge(sim.IPExec, 1)
	s.t.Charge(sim.NetnsExec, 1)
	return s.ip(fn)
}
