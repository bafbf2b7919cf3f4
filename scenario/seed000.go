// Seed 000, "ipv4: Flush the FIB once per dev nexthop removal": a device
// with 65536 nexthops and routes taken down (nexthop_flush_dev,
// net/ipv4/nexthop.c; fib_flush, net/ipv4/fib_frontend.c).

package scenario

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Seed000Params sizes seed 000's experiment. Zero fields take the seed's
// values.
type Seed000Params struct {
	Nexthops int // nexthops, each with one /32 route (seed: 65536)
	// Machine is the profile the run's costs come from: a shipped
	// profile's name or a profile file; "" is seed 000's machine (seed000).
	Machine string
	Costs   *sim.Costs // cost model, overriding Machine's; nil: Machine's
	Tracer  sim.Tracer // receives the run's trace events; nil: no tracing
	// Bystander is the period of a bystander's RTNL requests (a
	// systemd-networkd renewing DHCP leases); 0 means every second.
	Bystander time.Duration
	// Deaf keeps the bystander from listening. By default it listens to
	// the namespace's notifications during the link down, as
	// systemd-networkd, which the seed names, does; netsim charges a
	// listener nothing (see docs/seeds.md).
	Deaf bool
}

// Seed000Result is what seed 000's experiment reports beyond its Report.
type Seed000Result struct {
	*Report
	Hold         time.Duration // RTNL held by `ip link set testnh0 down`
	BystanderMax time.Duration // the longest wait of the bystander's requests for RTNL
	Flushes      int64         // fib_flush calls during the link down
	LeafVisits   int64         // trie leaves visited during the link down
	// Heard is what the bystander received during the link down: the
	// device's RTM_NEWLINK and its IPv6 link-local address and routes
	// going, and nothing per nexthop or IPv4 route (nexthop_flush_dev
	// removes without notifying; fib_table_flush does not notify).
	Heard []rtnl.Notification
}

// Seed000Devices returns seed 000's device set-up on h as one request per
// `ip` command of its script: veth eth2 with peer eth2p, both up, macvlan
// testnh0 in bridge mode on eth2, 198.51.100.1/24 on it, testnh0 up.
func Seed000Devices(h *rtnl.Handle) []func() error {
	return []func() error{
		func() error { return h.LinkAdd(netdev.Veth{Name: "eth2", Peer: "eth2p"}) },
		func() error { return h.LinkSetUp("eth2p") },
		func() error { return h.LinkSetUp("eth2") },
		func() error {
			return h.LinkAdd(netdev.Macvlan{Name: "testnh0", Link: "eth2", Mode: netdev.MacvlanBridge})
		},
		func() error { return h.AddrAdd("testnh0", netip.MustParsePrefix("198.51.100.1/24")) },
		func() error { return h.LinkSetUp("testnh0") },
	}
}

// seed000Nexthops is the size of seed 000's experiment.
const seed000Nexthops = 65536

// seed000Gateway is the gateway of every nexthop of seed 000.
var seed000Gateway = netip.MustParseAddr("198.51.100.2")

// Seed000Nexthop is seed 000's i-th nexthop (1 ≤ i ≤ 65536): id i via
// 198.51.100.2 dev testnh0.
func Seed000Nexthop(i int) rtnl.NexthopRequest {
	return rtnl.NexthopRequest{ID: nexthop.ID(i), Gateway: seed000Gateway, Dev: "testnh0"}
}

// Seed000Route is seed 000's i-th route (1 ≤ i ≤ 65536): 10.a.b.0/32 with
// a, b = (i-1)/256, (i-1)%256, through nexthop i.
func Seed000Route(i int) rtnl.Route {
	dst := netip.AddrFrom4([4]byte{10, byte((i - 1) / 256), byte((i - 1) % 256), 0})
	return rtnl.Route{Dst: netip.PrefixFrom(dst, 32), NexthopID: nexthop.ID(i)}
}

// Seed000 runs the test of seed 000 ("ipv4: Flush the FIB once per dev
// nexthop removal"): a veth eth2, a bridge-mode macvlan testnh0 on it with
// 198.51.100.1/24, p.Nexthops nexthop objects `via 198.51.100.2 dev
// testnh0` and as many routes 10.a.b.0/32 each using its own nexthop (both
// fed as `ip -batch`), then `ip link set testnh0 down` — phase "link down"
// — while a bystander makes an RTNL request every second and listens to
// the namespace's notifications.
//
// Taking the device down removes its nexthops newest first; each had one
// route. Before the patch every removal flushes the whole FIB (fib_flush:
// two walks of the trie that local and main share), visiting every route
// left: Θ(N·R). After it, the routes are marked dead and one flush removes
// them: Θ(N+R). RTNL is held throughout; nothing sleeps.
func Seed000(cfg rtnl.Config, p Seed000Params) (*Seed000Result, error) {
	if p.Nexthops == 0 {
		p.Nexthops = seed000Nexthops
	}
	if p.Nexthops < 1 || p.Nexthops > 65536 {
		return nil, fmt.Errorf("seed 000: nexthops must be 1..65536, not %d", p.Nexthops)
	}
	if p.Bystander == 0 {
		p.Bystander = time.Second
	}
	costs, cpus, err := runMachine("000", p.Machine, p.Costs, 0, 2)
	if err != nil {
		return nil, err
	}
	k, w, err := newSeedKernel(cfg, costs, cpus, p.Tracer)
	if err != nil {
		return nil, err
	}
	t := w.NewTask("ip")
	rc := newRecorder("000", k, t)
	n := k.InitNet()
	h := n.Handle(t)
	sh := &shell{t: t}
	if err := rc.phase("setup", func() error {
		for _, s := range Seed000Devices(h) {
			if err := sh.ip(s); err != nil {
				return err
			}
		}
		// seq 1 N | sed 's/.*/nexthop add id & via 198.51.100.2 dev testnh0/' | ip -batch -
		t.Charge(sim.IPExec, 1)
		for i := 1; i <= p.Nexthops; i++ {
			if err := h.NexthopAdd(Seed000Nexthop(i)); err != nil {
				return err
			}
		}
		// route add 10.a.b.0/32 nhid i, for a, b in 0..255, as one ip -batch.
		t.Charge(sim.IPExec, 1)
		for i := 1; i <= p.Nexthops; i++ {
			if err := h.RouteAdd(Seed000Route(i)); err != nil {
				return err
			}
		}
		k.Settle(t)
		return nil
	}); err != nil {
		return nil, err
	}

	// The timed command, `time ip link set testnh0 down`, runs scheduled
	// beside a bystander that asks for RTNL every period.
	var b *bystander
	var hold time.Duration
	if err := rc.timed("link down", func() (time.Duration, error) {
		b = spawnBystander(k, n, p.Bystander)
		if !p.Deaf {
			b.listen(n)
		}
		var downErr error
		var took time.Duration
		w.Spawn("ip", func(t *sim.Task) {
			defer b.stop()
			t0 := t.Now()
			t.Charge(sim.IPExec, 1)
			wait0, r0 := t.LockWaitTime(), t.Now()
			downErr = n.Handle(t).LinkSetDown("testnh0")
			hold = t.Now().Sub(r0) - (t.LockWaitTime() - wait0)
			took = t.Now().Sub(t0)
		})
		w.Run()
		return took, downErr
	}); err != nil {
		return nil, err
	}
	c := rc.r.Phases[len(rc.r.Phases)-1].Counters
	return &Seed000Result{Report: rc.done(), Hold: hold, BystanderMax: b.maxWait,
		Flushes: c.Get(sim.FIBFlush), LeafVisits: c.Get(sim.TrieLeafVisit), Heard: b.heard}, nil
}
