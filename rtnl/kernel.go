// Package rtnl is netsim's simulated kernel: the global RTNL lock, network
// namespaces, the rtnetlink request handlers, and the wiring between the
// subsystem packages: devices and their hardware address lists (netdev,
// hwaddr), the IPv4 FIB (fib), the IPv6 FIB (fib6), nexthop objects
// (nexthop) and policy rules (fibrules). A Handle, bound to one namespace and one task, is the
// user-facing API, shaped like vishvananda/netlink's Handle: each method is
// one request, and every dump returns typed values (LinkInfo, AddrInfo,
// RouteInfo, NexthopInfo, fibrules.Rule), never text; the front ends
// (iproute's ip) print them.
//
// LOCK ORDERING: RTNL → (per-subsystem locks, taken inside RTNL) → World
// internals. Every request takes RTNL for its whole duration, as rtnetlink
// does, and releases it through rtnl_unlock, which finishes unregistered
// devices (netdev_run_todo) outside the lock; the one exception is a rule
// request under seed 003's LockPerOps, which takes its family's rules lock
// (and RTNL only for a namespace's first IPv4 rule).
package rtnl

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fib6"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Kernel is one simulated machine's network control plane.
type Kernel struct {
	w     *sim.World
	cfg   Config
	rtnl  *sim.Mutex
	stack *netdev.Stack
	wq    *sim.WorkQueue

	// mu guards nets and netSeq, which change with RTNL held too.
	mu sync.Mutex
	// nets are the named namespaces.
	// +checklocks:mu
	nets map[string]*Net
	// netSeq is the number of named namespaces ever created.
	// +checklocks:mu
	netSeq uint64
	// fds are the open namespace descriptors (OpenNetnsFD).
	// +checklocks:mu
	fds map[uint32]*Net
	// all are the live namespaces, the initial one first, in order of
	// creation (net_namespace_list); one leaves when it is dismantled.
	// +checklocks:mu
	all     []*Net
	initNet *Net

	byTable map[*netdev.Table]*Net // every live namespace by its device table; guarded by RTNL

	// arp and nd are the neighbour tables (arp_tbl, nd_tbl), shared by
	// every namespace as the kernel's are; guarded by RTNL.
	arp, nd *neigh.Table

	// hashSeeds draws each namespace's random multipath hash seed
	// (get_random_u32 in proc_fib_multipath_hash_set_seed) from the
	// World's seeded randomness; guarded by RTNL.
	hashSeeds *rand.Rand
}

// NewKernel returns a kernel with configuration cfg in a new World with
// default options (one virtual CPU, the default cost model).
// It returns an EINVAL error for an invalid Config.
func NewKernel(cfg Config) (*Kernel, error) {
	w, err := sim.NewWorld(sim.Options{})
	if err != nil {
		return nil, err
	}
	return NewKernelIn(w, cfg)
}

// MustNewKernel is NewKernel for a Config known to be valid (the presets,
// tests, examples); it panics on an error.
func MustNewKernel(cfg Config) *Kernel {
	k, err := NewKernel(cfg)
	if err != nil {
		panic(err)
	}
	return k
}

// NewKernelIn returns a kernel with configuration cfg running in World w.
// The initial namespace is created with its loopback device. It returns an
// EINVAL error for a nil World or an invalid Config.
func NewKernelIn(w *sim.World, cfg Config) (*Kernel, error) {
	if w == nil {
		return nil, errno.New(syscall.EINVAL, "rtnl: nil World")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	k := &Kernel{w: w, cfg: cfg, rtnl: w.NewMutex("RTNL"), nets: map[string]*Net{}}
	stack, err := netdev.NewStack(w, k.rtnl, cfg.netdev())
	if err != nil {
		return nil, err
	}
	k.stack = stack
	k.byTable = map[*netdev.Table]*Net{}
	seed := w.Rand().Uint64()
	k.hashSeeds = rand.New(rand.NewPCG(seed, ^seed))
	k.arp = neigh.NewARP(neighAnnouncer{k, rt.FamilyInet})
	k.nd = neigh.NewND(neighAnnouncer{k, rt.FamilyInet6})
	// The FIB and the nexthop objects follow device and address events.
	// Kernel: nh_netdev_event (net/ipv4/nexthop.c) runs before
	// fib_netdev_event (net/ipv4/fib_frontend.c); fib_inetaddr_event.
	stack.RegisterNotifier(netdev.NotifierFunc(func(t *sim.Task, ev netdev.Event, d *netdev.Device) error {
		n := k.byTable[d.Table()]
		if n == nil {
			return nil
		}
		if ev == netdev.EventRegister || ev == netdev.EventUnregister {
			n.gens.devListed()
		}
		n.nh.FlushDev(t, d, ev, n.fib)
		k.neighNetdevEvent(t, ev, d)
		_ = n.rules4.NetdevEvent(t, ev, d)
		_ = n.rules6.NetdevEvent(t, ev, d)
		err := n.fib.NetdevEvent(t, ev, d)
		if err6 := n.fib6.NetdevEvent(t, ev, d); err == nil {
			err = err6
		}
		return err
	}))
	stack.RegisterAddrNotifier(func(t *sim.Task, ev netdev.Event, d *netdev.Device, a netdev.Addr) {
		if n := k.byTable[d.Table()]; n != nil {
			n.fib.InetAddrEvent(t, ev, d, a)
			k.neighInetAddrEvent(t, ev, d, a)
			if a.Prefix.Addr().Is4() && (ev == netdev.EventUp || ev == netdev.EventDown) {
				n.gens.addr4++ // fib_inetaddr_event
			}
		}
	})
	stack.SetAddrMetricHandler(func(t *sim.Task, d *netdev.Device, a netdev.Addr, metric uint32) {
		if n := k.byTable[d.Table()]; n != nil {
			n.fib.ModifyPrefixRoute(t, d, a, metric)
		}
	})
	stack.SetAnnouncer(announcer{k})
	k.wq = k.w.NewWorkQueue(k.runWork)
	k.stack.SetWorkQueue(k.wq)
	k.arp.SetTimers(k.wq)
	k.nd.SetTimers(k.wq)
	boot := w.NewTask("swapper")
	k.rtnl.Lock(boot)
	n, err := k.newNetLocked(boot, "")
	k.rtnl.Unlock(boot)
	if err != nil {
		panic("rtnl: cannot create the initial namespace: " + err.Error())
	}
	k.initNet = n
	return k, nil
}

// World returns the kernel's World.
func (k *Kernel) World() *sim.World { return k.w }

// Config returns the kernel's behaviour switches.
func (k *Kernel) Config() Config { return k.cfg }

// RTNL returns the RTNL mutex, for its statistics.
func (k *Kernel) RTNL() *sim.Mutex { return k.rtnl }

// Stack returns the machine-wide netdev state.
func (k *Kernel) Stack() *netdev.Stack { return k.stack }

// Counters returns the work counted so far by every task of the kernel's World.
func (k *Kernel) Counters() sim.Counters { return k.w.Counters() }

// InitNet returns the initial network namespace (init_net).
func (k *Kernel) InitNet() *Net { return k.initNet }

// lock takes RTNL for t.
//
// Kernel: rtnl_lock (net/core/rtnetlink.c).
//
// +checklocksacquire:k.rtnl
func (k *Kernel) lock(t *sim.Task) {
	end := t.Frame("rtnl_lock")
	k.rtnl.Lock(t)
	end()
}

// unlock releases RTNL and then finishes the devices that the critical
// section unregistered.
//
// Kernel: rtnl_unlock → netdev_run_todo (net/core/rtnetlink.c, dev.c).
//
// +checklocksrelease:k.rtnl
func (k *Kernel) unlock(t *sim.Task) {
	end := t.Frame("rtnl_unlock")
	todo := k.stack.TakeTodo()
	k.rtnl.Unlock(t)
	k.stack.RunTodo(t, todo)
	end()
}

// Settle runs all pending deferred work (DAD, namespace cleanup, address
// lifetime checks) and RCU callbacks, however far in the future, so the
// kernel is quiescent, then advances t's clock to the World's Now: t waits
// for the kernel to settle. Addresses with finite lifetimes therefore run
// out. Work that would be due at the end of virtual time (sim.End: a
// lifetime that would end past it) never runs.
// Use it between phases of a direct (unscheduled) simulation.
func (k *Kernel) Settle(t *sim.Task) {
	for {
		// Work that repeats for as long as the machine runs (a neighbour
		// table's periodic gc) runs only as far as the rest goes.
		if upTo, ok := k.wq.LastForeground(); ok {
			k.wq.RunDue(t, upTo)
		}
		k.w.Settle()
		if _, ok := k.wq.LastForeground(); !ok && k.w.RCU().Pending() == 0 {
			break
		}
	}
	t.SleepUntil(k.w.Now())
}

// SettleFor lets d of virtual time pass for t, as for a process that
// waits that long: the deferred work and RCU callbacks due by then run,
// earliest first, and work due later (an address lifetime's end) stays
// pending. t's clock ends d later (at sim.End at the latest).
func (k *Kernel) SettleFor(t *sim.Task, d time.Duration) {
	until := t.Now().Add(d)
	for {
		k.wq.RunDue(t, until)
		t.SleepUntil(until)
		if !k.wq.DueBy(until) {
			return
		}
	}
}

// Net is a network namespace (struct net).
type Net struct {
	k    *Kernel
	name string
	seq  uint64 // the order of creation of a named namespace
	devs *netdev.Table
	nh   *nexthop.Table // net->nexthop
	fib  *fib.FIB       // net->ipv4's tables
	fib6 *fib6.FIB      // net->ipv6's tables

	rules4, rules6 *fibrules.Ops // the IPv4 and IPv6 fib_rules_ops
	// notify is beside the rules: every rule change reads its count of
	// listeners, and one cache line then holds both.
	notify  notifiers // see Subscribe
	tables6 tables6   // the IPv6 tables as the IPv6 rules see them

	// mpSeed is the multipath hash seed in use: the one set with
	// net.ipv4.fib_multipath_hash_seed, or a random one while none is set
	// (0). Guarded by RTNL.
	mpSeed uint32

	ref netRef // the namespace's references (see netref.go)
	ids nsids  // the ids the namespace gives others (see nsid.go)

	gens dumpGens // the dumps' generation counters; guarded by RTNL

	cur         Origin      // the origin of the request holding RTNL; guarded by RTNL
	ruleOrigins ruleOrigins // the origins of the rule requests under way
}

// setMultipathSeed sets the namespace's multipath hash seed; 0 draws a
// random one. The IPv6 hash uses the same seed (rt6_multipath_hash keys
// with net->ipv4's, through fib_multipath_hash_from_keys). The caller
// holds RTNL.
//
// Kernel: proc_fib_multipath_hash_set_seed (net/ipv4/sysctl_net_ipv4.c).
func (n *Net) setMultipathSeed(user uint32) {
	n.mpSeed = user
	if user == 0 {
		n.mpSeed = n.k.hashSeeds.Uint32()
	}
	n.fib6.SetMultipathSeed(n.mpSeed)
}

// Name returns the namespace's name ("" for the initial namespace).
func (n *Net) Name() string { return n.name }

// Kernel returns the namespace's kernel.
func (n *Net) Kernel() *Kernel { return n.k }

// Devices returns the namespace's device table, for inspection by a caller
// that holds RTNL or has a quiescent simulation.
func (n *Net) Devices() *netdev.Table { return n.devs }

// Handle returns a Handle that makes requests in n as task t. The Handle
// holds a reference to n, as an open netlink socket holds its namespace,
// until its Close: a namespace deleted by name lives on while a Handle of
// it is open (see DelNet). A Handle made of a namespace already
// dismantled (one whose last reference was gone) fails its every request
// with ENOENT.
func (n *Net) Handle(t *sim.Task) *Handle {
	return &Handle{n: n, t: t, noNet: !n.ref.tryGet()}
}

func (k *Kernel) newNetLocked(t *sim.Task, name string) (*Net, error) {
	tb, err := k.stack.NewTable(t, name)
	if err != nil {
		return nil, err
	}
	nh := nexthop.NewTable(k.cfg.Nexthop)
	f := fib.New(nh)
	f6 := fib6.New(k.w, nh)
	// nh_create_ipv4 checks a gateway in the IPv4 FIB (fib_check_nh),
	// nh_create_ipv6 in the IPv6 one (fib6_nh_init).
	nh.SetGatewayScopeChecker(func(t *sim.Task, family rt.Family, gw netip.Addr, dev *netdev.Device, onlink bool) (uint8, error) {
		if family == rt.FamilyInet6 {
			return f6.CheckGatewayScope(t, family, gw, dev, onlink)
		}
		return f.CheckGatewayScope(t, family, gw, dev, onlink)
	})
	nh.SetLoopback(tb.Loopback())
	f.SetIPv6Stub(f6) // fib_check_nh_v6_gw's ipv6_stub->fib6_nh_init
	n := &Net{k: k, name: name, devs: tb, nh: nh, fib: f, fib6: f6}
	n.ref.init()
	f.SetAnnouncer(routeAnnouncer4{n})
	f6.SetAnnouncer(routeAnnouncer6{n})
	nh.SetBucketAnnouncer(bucketAnnouncer{n})
	n.fib6.SetCountedWalks(k.cfg.CountedWalks)
	n.fib.SetCountedWalks(k.cfg.CountedWalks)
	n.setMultipathSeed(0)
	n.tables6.mu.Lock()
	n.tables6.known.add(fib.TableMain)
	n.tables6.known.add(fib.TableLocal)
	n.tables6.mu.Unlock()
	n.tables6.count.Store(int64(n.fib6.TableCount()))
	tb.SetIPv6FIB(n.fib6)
	// The loopback device registered with the table, before the FIB
	// existed (ip6_route_dev_notify's NETDEV_REGISTER).
	n.fib6.SetLoopback(tb.Loopback())
	if n.rules4, err = fibrules.NewIPv4(k.w, fibrules.Config{
		Policy: k.cfg.Rules, Devices: tb, CountedWalks: k.cfg.CountedWalks,
		Notify: n.ruleNotify, Wanted: n.notifyNeeded,
	}, f); err != nil {
		return nil, err
	}
	// fib6_rules: every to_tbl rule creates its table (fib6_new_table) and
	// every change walks all the namespace's IPv6 tables (fib6_flush_trees).
	if n.rules6, err = fibrules.NewOps(k.w, fibrules.Config{
		Family: rt.FamilyInet6, Policy: k.cfg.Rules, Devices: tb, CountedWalks: k.cfg.CountedWalks,
		Notify: n.ruleNotify, Wanted: n.notifyNeeded,
		NewTable:   n.ruleNewTable6,
		FlushCache: func(t *sim.Task) { t.Charge(sim.Fib6TableWalk, n.tables6.count.Load()) },
	}); err != nil {
		return nil, err
	}
	n.fib6.SetRuleLookup(n.fib6RuleLookup)
	k.byTable[tb] = n
	k.mu.Lock()
	k.all = append(k.all, n)
	if name != "" {
		k.netSeq++
		n.seq = k.netSeq
		k.nets[name] = n
	}
	k.mu.Unlock()
	return n, nil
}

// ValidNetnsName reports whether name can name a namespace (as `ip netns
// add` requires: a non-empty file name).
func ValidNetnsName(name string) bool {
	return name != "" && name != "." && name != ".." && len(name) < 256 && !strings.Contains(name, "/")
}

// NewNet creates a network namespace named name with its loopback device.
//
// Kernel: copy_net_ns / setup_net; `ip netns add` gives EEXIST for a name in
// use.
func (k *Kernel) NewNet(t *sim.Task, name string) (*Net, error) {
	if !ValidNetnsName(name) {
		return nil, errno.Errorf(syscall.EINVAL, "Invalid netns name \"%s\"", name)
	}
	t.Charge(sim.Syscall, 1)
	k.wq.RunDue(t, t.Now())
	k.lock(t)
	defer k.unlock(t)
	if k.Net(name) != nil {
		return nil, errno.Errorf(syscall.EEXIST, "Cannot create namespace \"%s\": File exists", name)
	}
	return k.newNetLocked(t, name)
}

// Net returns the namespace named name, or nil.
func (k *Kernel) Net(name string) *Net {
	if name == "" {
		return k.initNet
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.nets[name]
}

// NetNames returns the names of the namespaces other than the initial one,
// sorted.
func (k *Kernel) NetNames() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for n := range k.nets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// NetNamesNewestFirst returns the names of the namespaces other than the
// initial one, the newest first: the order in which `ip netns list` reads
// a tmpfs /run/netns.
func (k *Kernel) NetNamesNewestFirst() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	nets := make([]*Net, 0, len(k.nets))
	for _, n := range k.nets {
		nets = append(nets, n)
	}
	sort.Slice(nets, func(i, j int) bool { return nets[i].seq > nets[j].seq })
	out := make([]string, len(nets))
	for i, n := range nets {
		out[i] = n.name
	}
	return out
}

// DelNet deletes the namespace named name: the name goes at once (Net
// no longer finds it and NewNet may use it again), and with it the
// reference the name held. The namespace lives on, usable through the
// Handles and sockets still open in it, until the last of them closes;
// then a cleanup worker (cleanup_net) dismantles it, taking RTNL: every
// device is deleted in one batch, then the loopback device. With nothing
// open in it, that work is queued at once.
//
// Kernel: `ip netns del` unmounts the name (nsfs's put_net); __put_net
// queues cleanup_net → default_device_exit_batch, loopback_net_exit
// (net/core/net_namespace.c, net/core/dev.c).
func (k *Kernel) DelNet(t *sim.Task, name string) error {
	t.Charge(sim.Syscall, 1)
	k.wq.RunDue(t, t.Now())
	k.lock(t)
	n := k.Net(name)
	if name == "" || n == nil {
		k.unlock(t)
		return errno.Errorf(syscall.ENOENT, "Cannot remove namespace \"%s\": No such file or directory", name)
	}
	k.mu.Lock()
	delete(k.nets, name)
	k.mu.Unlock()
	k.unlock(t)
	n.put(t)
	return nil
}

// cleanupNet dismantles a dead namespace, as the netns workqueue's
// kworker kw, taking RTNL for the exit methods only: the namespace leaves
// the list of namespaces and its ids leave every other namespace's table
// first, an expedited grace period passes, then under RTNL the nexthops,
// every device in one batch and the FIBs go (the devices' run_todo when
// RTNL is released), and a last rcu_barrier waits for the callbacks that
// still use the namespace.
//
// Kernel: cleanup_net (net/core/net_namespace.c): unhash_nsid,
// ops_undo_list (synchronize_rcu_expedited, then the pernet exit methods:
// nexthop_net_exit_batch_rtnl's flush_all_nexthops,
// default_device_exit_batch, ip_fib_net_exit), rcu_barrier.
func (k *Kernel) cleanupNet(kw *sim.Task, n *Net) {
	defer kw.Frame("cleanup_net")()
	k.unhashNsid(kw, n)
	k.w.RCU().SynchronizeExpedited(kw)
	k.lock(kw)
	n.nh.FlushAll(kw, n.fib)
	n.devs.DelAll(kw)
	n.fib.Exit(kw)
	n.fib6.Exit(kw)
	k.arp.ProxyNetExit(kw, n.devs)
	k.nd.ProxyNetExit(kw, n.devs)
	delete(k.byTable, n.devs)
	k.unlock(kw)
	k.w.RCU().Barrier(kw)
}

// cleanupNetWork is the name of the work item of cleanupNet, which takes
// RTNL itself (cleanup_net runs on netns_wq, outside RTNL).
const cleanupNetWork = "cleanup_net"

// runWork runs one work item in kworker kw, under RTNL, except
// cleanup_net, which takes RTNL where it needs it.
func (k *Kernel) runWork(kw *sim.Task, name string, fn func(kw *sim.Task)) {
	defer kw.Frame(name)()
	end := kw.Span(name)
	if name == cleanupNetWork {
		fn(kw)
		end()
		return
	}
	k.lock(kw)
	fn(kw)
	k.unlock(kw)
	end()
}

func (n *Net) String() string {
	if n.name == "" {
		return "init_net"
	}
	return fmt.Sprintf("netns %s", n.name)
}
