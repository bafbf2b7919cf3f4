package scenario

import (
	"fmt"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// checked drives one seed's script at a small scale with the invariant
// checkers on: after every request it runs Kernel.CheckInvariants, and
// every device that has gone since the last check must have been released
// (netdev.CheckReleased).
//
// The seed functions (Seed000, ...) do not hand out their kernel, so the
// scripts are driven here through the same steps and helpers (shell,
// seed001Setup, seed001PreviousRun, spawnBystander), one request at a time.
type checked struct {
	t    *testing.T
	k    *rtnl.Kernel
	w    *sim.World
	task *sim.Task
	sh   *shell
	seen map[*netdev.Device]bool
	n    int // requests checked
}

func newChecked(t *testing.T, cfg rtnl.Config, cpus int) *checked {
	t.Helper()
	w, err := sim.NewWorld(sim.Options{CPUs: cpus})
	if err != nil {
		t.Fatal(err)
	}
	k, err := rtnl.NewKernelIn(w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	task := w.NewTask("bash")
	c := &checked{t: t, k: k, w: w, task: task, sh: &shell{t: task}, seen: map[*netdev.Device]bool{}}
	c.check("boot")
	return c
}

// check runs the checkers; what names the step for a failure.
func (c *checked) check(what string) {
	c.t.Helper()
	c.n++
	if err := c.k.CheckInvariants(); err != nil {
		c.t.Fatalf("%s %s: %v", c.k.Config(), what, err)
	}
	live := map[*netdev.Device]bool{}
	for _, name := range append([]string{""}, c.k.NetNames()...) {
		for _, d := range c.k.Net(name).Devices().Devices() {
			live[d] = true
			c.seen[d] = true
		}
	}
	for d := range c.seen {
		if !live[d] && d.Registered() {
			continue // in a deleted namespace not dismantled yet
		}
		if !live[d] {
			if err := netdev.CheckReleased(d); err != nil {
				c.t.Fatalf("%s %s: %v", c.k.Config(), what, err)
			}
			delete(c.seen, d)
		}
	}
}

// do runs one request, which must succeed, and checks.
func (c *checked) do(what string, fn func() error) {
	c.t.Helper()
	if err := fn(); err != nil {
		c.t.Fatalf("%s %s: %v", c.k.Config(), what, err)
	}
	c.check(what)
}

// settle lets deferred work and RCU callbacks run, and checks the kernel
// at rest.
func (c *checked) settle(what string) {
	c.t.Helper()
	c.k.Settle(c.task)
	c.check(what + ", settled")
}

// TestSeedsKeepInvariants runs seeds 000, 001, 002 and 004 scaled down,
// before and after their patches, checking the kernel's invariants after
// every request and at the end of every phase.
func TestSeedsKeepInvariants(t *testing.T) {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		t.Run("000/"+cfg.String(), func(t *testing.T) { checkSeed000(t, cfg, 300) })
		t.Run("001/"+cfg.String(), func(t *testing.T) { checkSeed001(t, cfg, 40) })
		t.Run("002/"+cfg.String(), func(t *testing.T) { checkSeed002(t, cfg, 30) })
		t.Run("004/"+cfg.String(), func(t *testing.T) { checkSeed004(t, cfg, 100) })
	}
}

// checkSeed000 is Seed000's script with n nexthops.
func checkSeed000(t *testing.T, cfg rtnl.Config, n int) {
	cfg.CountedWalks = true
	c := newChecked(t, cfg, 2)
	h := c.k.InitNet().Handle(c.task)
	for k, step := range Seed000Devices(h) {
		c.do(fmt.Sprintf("device step %d", k+1), step)
	}
	for i := 1; i <= n; i++ {
		c.do(fmt.Sprintf("nexthop %d", i), func() error { return h.NexthopAdd(Seed000Nexthop(i)) })
	}
	for i := 1; i <= n; i++ {
		c.do(fmt.Sprintf("route %d", i), func() error { return h.RouteAdd(Seed000Route(i)) })
	}
	c.settle("setup")
	// The timed command, scheduled beside the bystander.
	b := spawnBystander(c.k, c.k.InitNet(), time.Millisecond)
	var downErr error
	c.w.Spawn("ip", func(t *sim.Task) {
		defer b.stop()
		downErr = c.k.InitNet().Handle(t).LinkSetDown("testnh0")
	})
	c.w.Run()
	c.do("link down", func() error { return downErr })
	c.settle("link down")
}

// checkSeed001 is Seed001's script with a previous run, for n vlans.
func checkSeed001(t *testing.T, cfg rtnl.Config, n int) {
	cfg.CountedWalks = true
	c := newChecked(t, cfg, 0)
	k, task := c.k, c.task
	c.do("previous run", func() error { return seed001PreviousRun(k, task, n) })
	c.do("netns del", func() error { return c.sh.ip(func() error { return k.DelNet(task, "test") }) })
	var h *rtnl.Handle
	c.do("netns add", func() error {
		nn, err := k.NewNet(task, "test")
		if err == nil {
			h = nn.Handle(task)
		}
		return err
	})
	c.do("setup", func() error { return seed001Setup(c.sh, h) })
	vlan := func(i int) string { return "foo." + strconv.Itoa(i) }
	for i := 1; i <= n; i++ {
		c.do("create "+vlan(i), func() error {
			return c.sh.netnsExec(func() error { return h.LinkAdd(netdev.Vlan{Name: vlan(i), Link: "b1", ID: uint16(i)}) })
		})
	}
	for i := 1; i <= n; i++ {
		c.do("up "+vlan(i), func() error { return c.sh.netnsExec(func() error { return h.LinkSetUp(vlan(i)) }) })
	}
	for i := 1; i <= n; i++ {
		a, err := seed001Addr(i)
		if err != nil {
			t.Fatal(err)
		}
		c.do("address "+vlan(i), func() error { return c.sh.netnsExec(func() error { return h.AddrAdd(vlan(i), a) }) })
	}
	c.settle("addresses")
	for i := 1; i <= n; i++ {
		c.do("enslave "+vlan(i), func() error {
			return c.sh.netnsExec(func() error { return h.LinkSetMaster(vlan(i), "florp") })
		})
	}
	c.settle("attach to vrf")
	c.do("netns del", func() error { _ = h.Close(); return k.DelNet(task, "test") })
	c.settle("teardown")
}

// checkSeed002 is Seed002's script for n interfaces.
func checkSeed002(t *testing.T, cfg rtnl.Config, n int) {
	c := newChecked(t, cfg, 0)
	k, task := c.k, c.task
	var h *rtnl.Handle
	c.do("netns add", func() error {
		nn, err := k.NewNet(task, "dummy-ns")
		if err == nil {
			h = nn.Handle(task)
		}
		return err
	})
	c.do("lo up", func() error { return h.LinkSetUp("lo") })
	for _, kv := range [][2]string{{"net.ipv6.conf.default.disable_ipv6", "0"}, {"net.ipv6.conf.default.forwarding", "1"}} {
		c.do(kv[0], func() error { return h.Sysctl(kv[0], kv[1]) })
	}
	for i := range n {
		name := fmt.Sprintf("eth%d", i)
		c.do("add "+name, func() error { return h.LinkAdd(netdev.Dummy{Name: name}) })
		c.do("up "+name, func() error { return h.LinkSetUp(name) })
		a := netip.MustParsePrefix(fmt.Sprintf("2021:%x::1/120", i))
		c.do("address "+name, func() error { return h.AddrAdd(name, a) })
	}
	c.settle("create")
	for i := range n {
		name := fmt.Sprintf("eth%d", i)
		c.do("delete "+name, func() error { return h.LinkDel(name) })
	}
	c.do("netns del", func() error { _ = h.Close(); return k.DelNet(task, "dummy-ns") })
	c.settle("delete")
}

// checkSeed004 is Seed004's script for n devices, one by one on three
// tasks, by group, and (after the patch) by ifindex list.
func checkSeed004(t *testing.T, cfg rtnl.Config, n int) {
	methods := []Seed004Method{OneByOne, ByGroup}
	if cfg.IfindexList {
		methods = append(methods, ByList)
	}
	for _, m := range methods {
		c := newChecked(t, cfg, 16)
		h := c.k.InitNet().Handle(c.task)
		names := make([]string, n)
		for i := range n {
			names[i] = fmt.Sprintf("lo%d", i)
			c.do("add "+names[i], func() error {
				return h.LinkAdd(netdev.Dummy{Name: names[i], Attrs: netdev.Attrs{Group: 1}})
			})
			c.do("up "+names[i], func() error { return h.LinkSetUp(names[i]) })
		}
		c.settle("setup")
		var idx []netdev.IfIndex
		for _, name := range names {
			idx = append(idx, c.k.InitNet().Devices().ByName(name).Index())
		}
		var errs []error
		switch m {
		case OneByOne:
			const threads = 3
			per := (n + threads - 1) / threads
			for th := range threads {
				lo, hi := th*per, min((th+1)*per, n)
				c.w.Spawn(fmt.Sprintf("del%d", th), func(t *sim.Task) {
					h := c.k.InitNet().Handle(t)
					for _, name := range names[lo:hi] {
						if err := h.LinkDel(name); err != nil {
							errs = append(errs, err)
						}
					}
				})
			}
		case ByGroup:
			c.w.Spawn("del", func(t *sim.Task) {
				if err := c.k.InitNet().Handle(t).LinkDelGroup(1); err != nil {
					errs = append(errs, err)
				}
			})
		case ByList:
			c.w.Spawn("del", func(t *sim.Task) {
				if err := c.k.InitNet().Handle(t).LinkDelList(idx); err != nil {
					errs = append(errs, err)
				}
			})
		}
		c.w.Run()
		c.do(m.String(), func() error {
			if len(errs) > 0 {
				return errs[0]
			}
			return nil
		})
		c.settle(m.String())
		if got := c.k.InitNet().Devices().Len(); got != 1 {
			t.Fatalf("%s %s: %d devices left", cfg, m, got)
		}
	}
}
