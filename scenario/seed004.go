// Seed 004, "rtnetlink: Support fine-grained netdevice bulk deletion":
// dummies deleted one by one from concurrent tasks, by group, or by
// ifindex list (rtnl_dellink, rtnl_group_dellink, net/core/rtnetlink.c).

package scenario

import (
	"fmt"
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Seed004Method is how seed 004's devices are deleted.
type Seed004Method uint8

const (
	// OneByOne sends one RTM_DELLINK per device, from Threads tasks.
	OneByOne Seed004Method = iota
	// ByGroup sends one RTM_DELLINK with IFLA_GROUP (`ip link del group G`).
	ByGroup
	// ByList sends RTM_DELLINK with IFLA_IFINDEX_LIST, at most
	// netdev.MaxIfindexList devices per request (the patch).
	ByList
)

// String returns "one-by-one", "group" or "list".
func (m Seed004Method) String() string {
	switch m {
	case OneByOne:
		return "one-by-one"
	case ByGroup:
		return "group"
	case ByList:
		return "list"
	}
	return fmt.Sprintf("method(%d)", uint8(m))
}

// Seed004Params sizes seed 004's experiment. Zero fields take the seed's
// values.
type Seed004Params struct {
	Devices int           // dummy devices, each up with only an IPv6 link-local (seed: 10 000)
	Threads int           // tasks deleting one by one (seed: 1, 10, 50); ignored for group and list
	Method  Seed004Method // how they are deleted
	CPUs    int           // virtual CPUs (default: Machine's, or 16 if it does not say)
	// Machine is the profile the run's costs and CPUs come from: a shipped
	// profile's name or a profile file; "" is seed 004's machine (seed004).
	Machine string
	Costs   *sim.Costs // cost model, overriding Machine's; nil: Machine's
	Tracer  sim.Tracer // receives the run's trace events; nil: no tracing
}

// seed004Devices is the size of seed 004's benchmark.
const seed004Devices = 10000

// Seed004 runs the benchmark of seed 004 ("rtnetlink: Support fine-grained
// netdevice bulk deletion"): p.Devices loopback-like devices (dummies), all
// up with only an IPv6 link-local address, are deleted one by one from
// p.Threads concurrent tasks, or in one request by group, or (with
// Config.IfindexList) by ifindex list. The phase "setup" builds them; the
// phase named after the method and thread count ("one-by-one/10") deletes
// them, timed from the first request to the return of the last.
//
// Each request holds RTNL while its devices go down and away — two walks of
// the namespace's IPv6 routes per device (fib6_clean_all from
// addrconf_ifdown) and two expedited grace periods per request — and then,
// outside RTNL, runs one rcu_barrier and takes RTNL once more per device.
// Tasks running barriers at the same time share them.
func Seed004(cfg rtnl.Config, p Seed004Params) (*Report, error) {
	if p.Devices == 0 {
		p.Devices = seed004Devices
	}
	if p.Threads == 0 {
		p.Threads = 1
	}
	costs, cpus, err := runMachine("004", p.Machine, p.Costs, p.CPUs, 16)
	if err != nil {
		return nil, err
	}
	p.CPUs = cpus
	if p.Devices < 1 || p.Devices > 1<<20 || p.Threads < 1 || p.Threads > p.Devices || p.CPUs < 1 {
		return nil, fmt.Errorf("seed 004: need 1 ≤ threads ≤ devices ≤ 2^20 and cpus ≥ 1 (devices=%d threads=%d cpus=%d)", p.Devices, p.Threads, p.CPUs)
	}
	if p.Method > ByList {
		return nil, fmt.Errorf("seed 004: unknown method %d", p.Method)
	}
	if p.Method != OneByOne {
		p.Threads = 1
	}
	k, w, err := newSeedKernel(cfg, costs, p.CPUs, p.Tracer)
	if err != nil {
		return nil, err
	}
	setup := w.NewTask("setup")
	rc := newRecorder("004", k, setup)
	h := k.InitNet().Handle(setup)
	names := make([]string, p.Devices)
	idx := make([]netdev.IfIndex, p.Devices)
	if err := rc.phase("setup", func() error {
		for i := range p.Devices {
			names[i] = fmt.Sprintf("lo%d", i)
			if err := h.LinkAdd(netdev.Dummy{Name: names[i], Attrs: netdev.Attrs{Group: 1}}); err != nil {
				return err
			}
			if err := h.LinkSetUp(names[i]); err != nil {
				return err
			}
		}
		k.Settle(setup)
		l, err := h.LinkList()
		if err != nil {
			return err
		}
		byName := map[string]netdev.IfIndex{}
		for _, li := range l {
			byName[li.Name] = li.Index
		}
		for i, n := range names {
			idx[i] = byName[n]
		}
		return nil
	}); err != nil {
		return nil, err
	}

	phase := p.Method.String()
	if p.Method == OneByOne {
		phase = fmt.Sprintf("%s/%d", phase, p.Threads)
	}
	var errs []error
	start := w.Now()
	switch p.Method {
	case OneByOne:
		per := (p.Devices + p.Threads - 1) / p.Threads
		for th := range p.Threads {
			lo, hi := th*per, min((th+1)*per, p.Devices)
			w.Spawn(fmt.Sprintf("del%d", th), func(t *sim.Task) {
				h := k.InitNet().Handle(t)
				for _, n := range names[lo:hi] {
					if err := h.LinkDel(n); err != nil {
						errs = append(errs, err)
						return
					}
				}
			})
		}
	case ByGroup:
		w.Spawn("del", func(t *sim.Task) {
			if err := k.InitNet().Handle(t).LinkDelGroup(1); err != nil {
				errs = append(errs, err)
			}
		})
	case ByList:
		w.Spawn("del", func(t *sim.Task) {
			h := k.InitNet().Handle(t)
			for rest := idx; len(rest) > 0; {
				n := min(len(rest), netdev.MaxIfindexList)
				if err := h.LinkDelList(rest[:n]); err != nil {
					errs = append(errs, err)
					return
				}
				rest = rest[n:]
			}
		})
	}
	if err := rc.timed(phase, func() (time.Duration, error) {
		end := w.Run()
		if len(errs) > 0 {
			return end.Sub(start), errs[0]
		}
		return end.Sub(start), nil
	}); err != nil {
		return nil, err
	}
	return rc.done(), nil
}
