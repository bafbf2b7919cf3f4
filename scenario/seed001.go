// Seed 001, "net-next: Improve perf of bond/vlans modification": VLANs on a
// bond whose multicast lists are synced to the slave
// (__hw_addr_sync_multiple, net/core/dev_addr_lists.c).

package scenario

import (
	"fmt"
	"net/netip"
	"strconv"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// seed001VLANs is the size of seed 001's experiment.
const seed001VLANs = 1500

// Seed001Params sizes seed 001's experiment. Zero fields take the seed's
// values.
type Seed001Params struct {
	VLANs int // VLANs on the bond (seed: 1500)
	// Machine is the profile the run's costs come from: a shipped
	// profile's name or a profile file; "" is seed 001's machine (seed001).
	Machine string
	Costs   *sim.Costs // cost model, overriding Machine's; nil: Machine's
	Tracer  sim.Tracer // receives the run's trace events; nil: no tracing
	// Phases stops the script after that many timed loops (0: all four).
	Phases int
	// PreviousRun starts the script with the namespace of an earlier run
	// of the same script still present, as its first line (`ip netns del
	// test`) allows; its dismantling then runs under RTNL while the new
	// run creates its VLANs. Off by default: the published numbers do not
	// say which it was.
	PreviousRun bool
}

// Seed001 runs the script of seed 001 ("net-next: Improve perf of
// bond/vlans modification"): in namespace "test", with keep_addr_on_down,
// a veth pair foo/bar, bond b1 with slave bar, vrf florp (table 10), all
// up; then four timed loops of `ip -n test` commands over p.VLANs VLANs
// foo.i on b1: "create vlans", "bring up", "assign addresses" (2000::i/64)
// and "attach to vrf".
//
// What makes phases slow is each VLAN's multicast list pushed to b1 and b1's
// to bar: every solicited-node group of a new IPv6 address adds an entry to
// b1's and bar's lists, and every change of a VLAN's list re-syncs b1's
// whole list to bar, searching bar's list once per entry — linearly before
// the patch, in the rbtree after. Nothing here is tuned per phase.
func Seed001(cfg rtnl.Config, p Seed001Params) (*Report, error) {
	if p.VLANs == 0 {
		p.VLANs = seed001VLANs
	}
	if p.VLANs < 1 || p.VLANs > netdev.VlanMaxID {
		return nil, fmt.Errorf("seed 001: vlans must be 1..%d, not %d", netdev.VlanMaxID, p.VLANs)
	}
	costs, cpus, err := runMachine("001", p.Machine, p.Costs, 0, 0)
	if err != nil {
		return nil, err
	}
	k, w, err := newSeedKernel(cfg, costs, cpus, p.Tracer)
	if err != nil {
		return nil, err
	}
	t := w.NewTask("bash")
	rc := newRecorder("001", k, t)
	sh := &shell{t: t}
	var h *rtnl.Handle

	// ip -n test CMD: a process that enters the namespace, then asks.
	ipn := func(fn func() error) error { return sh.netnsExec(fn) }
	vlan := func(i int) string { return "foo." + strconv.Itoa(i) }
	// for i in $(seq VLANs); do ip -n test ...; done
	eachVLAN := func(cmd func(i int) error) error {
		for i := 1; i <= p.VLANs; i++ {
			if err := ipn(func() error { return cmd(i) }); err != nil {
				return err
			}
		}
		return nil
	}

	if p.PreviousRun {
		if err := seed001PreviousRun(k, t, p.VLANs); err != nil {
			return nil, err
		}
	}
	if err := rc.phase("setup", func() error {
		if p.PreviousRun {
			// ip netns del test: the name goes now, the namespace later.
			if err := sh.ip(func() error { return k.DelNet(t, "test") }); err != nil {
				return err
			}
		}
		if err := sh.ip(func() error {
			n, err := k.NewNet(t, "test")
			if err == nil {
				h = n.Handle(t)
			}
			return err
		}); err != nil {
			return err
		}
		return seed001Setup(sh, h)
	}); err != nil {
		return nil, err
	}
	if err := rc.phase("create vlans", func() error {
		return eachVLAN(func(i int) error { return h.LinkAdd(netdev.Vlan{Name: vlan(i), Link: "b1", ID: uint16(i)}) })
	}); err != nil {
		return nil, err
	}
	if err := rc.phase("bring up", func() error {
		return eachVLAN(func(i int) error { return h.LinkSetUp(vlan(i)) })
	}); err != nil {
		return nil, err
	}
	if err := rc.phase("assign addresses", func() error {
		for i := 1; i <= p.VLANs; i++ {
			a, err := seed001Addr(i)
			if err != nil {
				return err
			}
			if err := ipn(func() error { return h.AddrAdd(vlan(i), a) }); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if p.Phases > 0 && p.Phases < 4 {
		return rc.done(), nil
	}
	if err := rc.phase("attach to vrf", func() error {
		return eachVLAN(func(i int) error { return h.LinkSetMaster(vlan(i), "florp") })
	}); err != nil {
		return nil, err
	}
	return rc.done(), nil
}

// seed001Addr is the script's 2000::$i/64, where $i's decimal digits are
// read as hexadecimal.
func seed001Addr(i int) (netip.Prefix, error) {
	return netip.ParsePrefix("2000::" + strconv.Itoa(i) + "/64")
}

// seed001Setup is the script's untimed set-up after `ip netns add test`.
func seed001Setup(sh *shell, h *rtnl.Handle) error {
	steps := []func() error{
		// echo 1 | ip netns exec test tee .../all/keep_addr_on_down
		func() error { return h.Sysctl("net.ipv6.conf.all.keep_addr_on_down", "1") },
		func() error { return h.LinkAdd(netdev.Veth{Name: "foo", Peer: "bar"}) },
		func() error { return h.LinkAdd(netdev.Bond{Name: "b1"}) },
		func() error { return h.LinkAdd(netdev.VRF{Name: "florp", Table: 10}) },
		func() error { return h.LinkSetMaster("bar", "b1") },
		func() error { return h.LinkSetUp("foo") },
		func() error { return h.LinkSetUp("bar") },
		func() error { return h.LinkSetUp("b1") },
		func() error { return h.LinkSetUp("florp") },
	}
	for _, s := range steps {
		if err := sh.netnsExec(s); err != nil {
			return err
		}
	}
	return nil
}

// seed001PreviousRun leaves behind what a complete earlier run of the
// script leaves: namespace "test" with its VLANs up, addressed and enslaved
// to the vrf. It runs before the measured script, in no phase.
func seed001PreviousRun(k *rtnl.Kernel, t *sim.Task, vlans int) error {
	n, err := k.NewNet(t, "test")
	if err != nil {
		return err
	}
	h := n.Handle(t)
	defer h.Close() // the earlier run's processes have exited
	sh := &shell{t: t}
	if err := seed001Setup(sh, h); err != nil {
		return err
	}
	for i := 1; i <= vlans; i++ {
		name := "foo." + strconv.Itoa(i)
		a, err := seed001Addr(i)
		if err != nil {
			return err
		}
		for _, step := range []func() error{
			func() error { return h.LinkAdd(netdev.Vlan{Name: name, Link: "b1", ID: uint16(i)}) },
			func() error { return h.LinkSetUp(name) },
			func() error { return h.AddrAdd(name, a) },
			func() error { return h.LinkSetMaster(name, "florp") },
		} {
			if err := step(); err != nil {
				return err
			}
		}
	}
	k.Settle(t)
	return nil
}
