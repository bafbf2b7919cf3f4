package rtnl_test

import (
	"fmt"
	"net/netip"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// worker makes a fixed series of requests in one namespace through h: n
// veth pairs named after id, each brought up, given addresses, brought
// down; every third pair is deleted at once, the rest are put in group
// id+1. It returns the names of the devices it leaves behind. Failures
// are reported through errs, since it runs outside the test goroutine.
func worker(h *rtnl.Handle, id, n int, errs chan<- error) (kept []string) {
	check := func(err error) bool {
		if err != nil {
			errs <- fmt.Errorf("worker %d: %w", id, err)
			return false
		}
		return true
	}
	for i := range n {
		a, b := fmt.Sprintf("w%d-%d", id, i), fmt.Sprintf("w%d-%dp", id, i)
		if !check(h.LinkAdd(netdev.Veth{Name: a, Peer: b})) ||
			!check(h.LinkSetUp(a)) || !check(h.LinkSetUp(b)) ||
			!check(h.AddrAdd(a, pfx(fmt.Sprintf("10.%d.%d.1/24", id, i)))) ||
			!check(h.AddrAdd(a, pfx(fmt.Sprintf("2001:db8:%x:%x::1/64", id, i)))) {
			return kept
		}
		if _, err := h.LinkList(); !check(err) {
			return kept
		}
		if _, err := h.AddrList(a, rt.FamilyUnspec); !check(err) {
			return kept
		}
		if !check(h.RouteAdd(rtnl.Route{
			Dst: pfx(fmt.Sprintf("2001:db8:%x:%x:1::/80", id, i)), Gateway: netip.MustParseAddr(fmt.Sprintf("2001:db8:%x:%x::2", id, i)), Dev: a,
		})) {
			return kept
		}
		if _, err := h.RouteList(rt.FamilyUnspec, 0); !check(err) {
			return kept
		}
		if _, err := h.GetRoute(rtnl.RouteGetRequest{Dst: netip.MustParseAddr(fmt.Sprintf("2001:db8:%x:%x:1::5", id, i))}); !check(err) {
			return kept
		}
		if !check(h.LinkSetDown(a)) || !check(h.LinkSetDown(b)) {
			return kept
		}
		if i%3 == 0 {
			if !check(h.LinkDel(b)) { // the pair goes
				return kept
			}
			continue
		}
		if !check(h.LinkSetGroup(a, uint32(id+1))) {
			return kept
		}
		kept = append(kept, a, b)
	}
	return kept
}

// TestConcurrentHandles drives several namespaces from several goroutines,
// each with its own task: three workers share each namespace, and another
// goroutine toggles IPv6 forwarding in init_net meanwhile. Under -race this
// checks that the kernel is safe for real concurrent use; afterwards every
// namespace must hold exactly what its workers left, consistently indexed,
// with every reference released.
func TestConcurrentHandles(t *testing.T) {
	const (
		nets    = 3 // init_net and two more
		perNet  = 3
		perWork = 12
	)
	k := rtnl.MustNewKernel(rtnl.After)
	w := k.World()
	boot := w.NewTask("setup")
	ns := []*rtnl.Net{k.InitNet()}
	for i := 1; i < nets; i++ {
		n, err := k.NewNet(boot, fmt.Sprintf("ns%d", i))
		require.NoError(t, err)
		ns = append(ns, n)
	}

	errs := make(chan error, 1000)
	kept := make([][]string, nets*perNet)
	var wg sync.WaitGroup
	for i := range nets * perNet {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := ns[i%nets].Handle(w.NewTask(fmt.Sprintf("worker%d", i)))
			kept[i] = worker(h, i, perWork, errs)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		h := k.InitNet().Handle(w.NewTask("sysctl"))
		for i := range 10 {
			if err := h.Sysctl("net.ipv6.conf.all.forwarding", fmt.Sprint(i%2)); err != nil {
				errs <- err
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	k.Settle(boot)
	require.Zero(t, w.RCU().Pending())
	for ni, n := range ns {
		want := []string{"lo"}
		for i := ni; i < nets*perNet; i += nets {
			want = append(want, kept[i]...)
		}
		tbl := n.Devices()
		var got []string
		seen := map[netdev.IfIndex]bool{}
		for _, d := range tbl.Devices() {
			got = append(got, d.Name())
			require.False(t, seen[d.Index()], "ifindex %d twice in %v", d.Index(), n)
			seen[d.Index()] = true
			require.Same(t, d, tbl.ByIndex(d.Index()))
			require.Same(t, d, tbl.ByName(d.Name()))
			if d.Name() == "lo" {
				continue
			}
			require.False(t, d.IsUp(), d.Name())
			require.Zero(t, d.IPv6Routes(), "%s: routes left", d)
			require.Equal(t, int64(2), d.RefCount(), "%s: only the IPv4 and IPv6 state's references are left", d)
		}
		sort.Strings(want)
		sort.Strings(got)
		require.Equal(t, want, got, "%v", n)
		require.Equal(t, len(want), tbl.Len())
		require.Zero(t, tbl.UnregisteringCount())

		// Every address a worker gave a surviving device: its IPv4 one
		// (IPv6 addresses went when the device went down).
		h := n.Handle(boot)
		addrs, err := h.AddrList("", rt.FamilyInet)
		require.NoError(t, err)
		require.Len(t, addrs, (len(want)-1)/2)

		// Each worker's group goes in one request.
		for i := ni; i < nets*perNet; i += nets {
			if len(kept[i]) > 0 {
				require.NoError(t, h.LinkDelGroup(uint32(i+1)))
			}
		}
		require.Equal(t, []string{"lo"}, linkNames(t, h))
	}
	st := k.RTNL().Stats()
	require.Positive(t, st.Acquires)
	t.Logf("RTNL: %d acquisitions, %d contended, max hold %v", st.Acquires, st.Contended, st.HoldMax)
}

// runScheduled runs a fixed scenario with World.Spawn and World.Run: four
// tasks, two in init_net and two in a namespace of their own, creating,
// configuring and deleting devices at once; DAD runs in kworker tasks the
// kernel spawns. It returns what a run must reproduce exactly.
func runScheduled(t *testing.T) (summary []string) {
	w := sim.MustNewWorld(sim.Options{CPUs: 2})
	k, err := rtnl.NewKernelIn(w, rtnl.After)
	require.NoError(t, err)
	setup := w.NewTask("setup")
	red, err := k.NewNet(setup, "red")
	require.NoError(t, err)
	blue, err := k.NewNet(setup, "blue")
	require.NoError(t, err)

	var mu sync.Mutex
	var errs []error
	note := func(err error) {
		if err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	}
	body := func(n *rtnl.Net, id int) func(*sim.Task) {
		return func(t *sim.Task) {
			h := n.Handle(t)
			for i := range 6 {
				a := fmt.Sprintf("t%d-%d", id, i)
				note(h.LinkAdd(netdev.Veth{Name: a, Peer: a + "p"}))
				note(h.LinkSetUp(a))
				note(h.LinkSetUp(a + "p"))
				note(h.AddrAdd(a, pfx(fmt.Sprintf("2001:db8:%x:%x::1/64", id, i))))
				note(h.AddrAdd(a, pfx(fmt.Sprintf("10.%d.%d.1/24", id, i))))
				if i%2 == 1 {
					note(h.LinkDel(a))
				}
			}
			t.Sleep(3 * time.Second) // let DAD finish before the last look
			l, err := h.LinkList()
			note(err)
			mu.Lock()
			summary = append(summary, fmt.Sprintf("%s links=%d", t, len(l)))
			mu.Unlock()
		}
	}
	tasks := []*sim.Task{
		w.Spawn("a", body(k.InitNet(), 1)),
		w.Spawn("b", body(k.InitNet(), 2)),
		w.Spawn("c", body(red, 3)),
		w.Spawn("d", body(blue, 4)),
	}
	end := w.Run()
	require.Empty(t, errs)
	summary = append(summary, fmt.Sprintf("end=%v counters=%v", end, w.Counters()))
	for _, tk := range tasks {
		summary = append(summary, fmt.Sprintf("%s now=%v cpu=%v slept=%v lockwait=%v %v",
			tk, tk.Now(), tk.CPUTime(), tk.SleepTime(), tk.LockWaitTime(), tk.Counters()))
	}
	st := k.RTNL().Stats()
	summary = append(summary, fmt.Sprintf("rtnl acquires=%d contended=%d holdmax=%v waitmax=%v", st.Acquires, st.Contended, st.HoldMax, st.WaitMax))
	for _, n := range []*rtnl.Net{k.InitNet(), red, blue} {
		for _, d := range n.Devices().Devices() {
			summary = append(summary, fmt.Sprintf("%v %s %d %v %v %v", n, d, d.Index(), d.Addr(), v6s(d), d.MC().Entries()))
		}
	}
	return summary
}

func v6s(d *netdev.Device) []string {
	var out []string
	for _, a := range d.Inet6Addrs() {
		out = append(out, fmt.Sprintf("%s %#x", a.Prefix, uint32(a.Flags)))
	}
	return out
}

// TestScheduledDeterministic: the same scheduled scenario gives the same
// virtual times, counters, lock statistics and final state, twice.
func TestScheduledDeterministic(t *testing.T) {
	first := runScheduled(t)
	second := runScheduled(t)
	require.Equal(t, first, second)
	require.Contains(t, first, "a#4 links=13", "lo and three pairs from each of two tasks in init_net")
	require.Contains(t, first, "c#6 links=7", "lo and three pairs in red")
	for _, line := range first {
		t.Log(line)
	}
}
