// The device layer of one simulated machine and of each of its network
// namespaces: the behaviour switches (Config), the netdevice notifier chain
// (register_netdevice_notifier, call_netdevice_notifiers), and a
// namespace's device table: the name and ifindex indexes, the device list,
// name allocation (dev_alloc_name), ifindex allocation (dev_index_reserve),
// registration (register_netdevice) and the per-namespace sysctls device
// code reads (net/core/dev.c, net/core/net_namespace.c).

package netdev

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/sim"
)

// Config holds the netdev behaviour switches that seed patches changed.
// The zero Config is the pre-patch behaviour of seeds 001 and 002.
type Config struct {
	// HWAddr is the search policy of every device's uc and mc lists
	// (seed 001: ListOnly before, TreeIndexed after).
	HWAddr hwaddr.Policy
	// Wait is netdev_wait_allrefs's polling (seed 002: WaitFixed before,
	// WaitBackoff after).
	Wait WaitPolicy
	// CountedWalks makes ListOnly uc and mc lists count their searches'
	// compares instead of walking (hwaddr.List.SetCountedWalk): a
	// simulation-speed option, with the same behaviour, counters and virtual
	// time, and sub-linear wall time. It changes nothing for TreeIndexed.
	CountedWalks bool
	// RefWaitLimit bounds, in virtual nanoseconds, how long
	// netdev_wait_allrefs waits for a device's last references: past it,
	// a leaked reference panics with the kernel's "waiting for ... to
	// become free" message instead of looping for ever. 0 waits for ever,
	// as the kernel does; tests set a limit.
	RefWaitLimit int64
}

// Notifier receives netdev notifier events. Returning an error vetoes the
// events that can be vetoed (EventPreUp, EventPreChangeUpper); for the
// others the error is ignored, as the kernel ignores NOTIFY_BAD there.
//
// Notifiers run with RTNL held, in the task that caused the event.
type Notifier interface {
	NetdevEvent(t *sim.Task, ev Event, dev *Device) error
}

// NotifierFunc adapts a function to Notifier.
type NotifierFunc func(t *sim.Task, ev Event, dev *Device) error

// NetdevEvent calls f.
func (f NotifierFunc) NetdevEvent(t *sim.Task, ev Event, dev *Device) error { return f(t, ev, dev) }

// Stack is the machine-wide net_device state: the behaviour Config, the
// notifier chain, and the list of unregistered devices waiting for
// netdev_run_todo. Namespaces' device tables hang off it.
//
// LOCK ORDERING: RTNL (the Mutex given to NewStack) guards everything in a
// Stack, its Tables and their Devices, except Device.refcnt.
type Stack struct {
	w    *sim.World
	rtnl *sim.Mutex
	cfg  Config

	rng       *rand.Rand // random MACs and DAD delays; guarded by RTNL
	rngSrc    *rand.PCG  // rng's source, saved and restored around a request that may fail
	notifiers []Notifier // guarded by RTNL
	todo      []*Device  // net_todo_list, guarded by RTNL

	addrNotifiers []AddrEventHandler // guarded by RTNL
	addrMetric    AddrMetricHandler  // fib_modify_prefix_route
	announce      Announcer          // rtnetlink's link and address messages; nil: none
	wq            WorkQueue
	nextNetID     int

	// lwQueue is linkwatch's event list (lweventlist): the devices whose
	// carrier changed and whose operstate and NETDEV_CHANGE wait for the
	// linkwatch work; lwHold counts the requests under way that run it
	// when they end. Guarded by RTNL.
	lwQueue []*Device
	lwHold  int

	// addr6Seq numbers the IPv6 addresses in the order they were added
	// (ipv6_add_addr_hash), for Table.Inet6AddrLookup. Guarded by RTNL.
	addr6Seq uint64
}

// NewStack returns a Stack for world w whose RTNL is rtnl.
// It returns an EINVAL error for a nil World or RTNL, or an invalid Config.
func NewStack(w *sim.World, rtnl *sim.Mutex, cfg Config) (*Stack, error) {
	if w == nil || rtnl == nil {
		return nil, errno.New(syscall.EINVAL, "netdev: NewStack needs a World and its RTNL")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	seed := w.Rand().Uint64()
	src := rand.NewPCG(seed, ^seed)
	return &Stack{w: w, rtnl: rtnl, cfg: cfg, rng: rand.New(src), rngSrc: src, wq: InlineWork{}}, nil
}

// Validate returns an EINVAL error for a policy value that does not exist.
func (c Config) Validate() error {
	if c.HWAddr != hwaddr.ListOnly && c.HWAddr != hwaddr.TreeIndexed {
		return errno.Errorf(syscall.EINVAL, "Unknown hardware address list policy %d", c.HWAddr)
	}
	if c.Wait != WaitFixed && c.Wait != WaitBackoff {
		return errno.Errorf(syscall.EINVAL, "Unknown netdev_wait_allrefs policy %d", c.Wait)
	}
	if c.RefWaitLimit < 0 {
		return errno.Errorf(syscall.EINVAL, "Negative netdev_wait_allrefs limit %d", c.RefWaitLimit)
	}
	return nil
}

// newAddrList returns an empty device address list searched as the Config says.
func (s *Stack) newAddrList() *hwaddr.List {
	l := hwaddr.NewList(s.cfg.HWAddr)
	l.SetCountedWalk(s.cfg.CountedWalks)
	return l
}

// Config returns the stack's behaviour switches.
func (s *Stack) Config() Config { return s.cfg }

// World returns the stack's World.
func (s *Stack) World() *sim.World { return s.w }

// RegisterNotifier appends n to the netdev notifier chain. Call it while
// setting up, before any task uses the stack.
//
// Kernel: register_netdevice_notifier (net/core/dev.c).
func (s *Stack) RegisterNotifier(n Notifier) { s.notifiers = append(s.notifiers, n) }

// notify calls the notifier chain for ev on dev: first the subsystems inside
// netdev (stacked devices, IPv4, IPv6), then the registered notifiers.
//
// Kernel: call_netdevice_notifiers (net/core/dev.c).
func (s *Stack) notify(t *sim.Task, ev Event, dev *Device) error {
	defer t.Frame("call_netdevice_notifiers")()
	t.Charge(sim.NotifierCall, 1)
	vetoable := ev == EventPreUp || ev == EventPreChangeUpper
	s.rtnetlinkEvent(t, ev, dev)
	for _, n := range builtinNotifiers {
		if err := n(t, ev, dev); err != nil && vetoable {
			return err
		}
	}
	for _, n := range s.notifiers {
		if err := n.NetdevEvent(t, ev, dev); err != nil && vetoable {
			return err
		}
	}
	return nil
}

// builtinNotifiers are the subsystems inside netdev on the notifier chain,
// ahead of the registered notifiers. It is set in init because its functions
// notify in turn, which a package-level initializer may not refer back to.
var builtinNotifiers []NotifierFunc

func init() {
	builtinNotifiers = []NotifierFunc{stackedDeviceEvent, bridgeDeviceEvent, inetdevEvent, addrconfNotify}
}

// Table is one network namespace's devices: the name and ifindex indexes,
// the device list in registration order, and the per-namespace sysctls that
// device code reads.
//
// Every field is guarded by RTNL (the Stack's) except byName, which
// ByNameRCU reads under namesMu alone (dev_get_by_name_rcu): a writer of
// byName holds both, so a reader holding either sees no change under way.
type Table struct {
	s    *Stack
	id   int
	name string

	byIndex map[IfIndex]*Device
	namesMu sync.RWMutex // writers hold RTNL and this; ByNameRCU readers only this
	// byName is written under RTNL and namesMu; read under either.
	byName     map[string]*Device // +checklocks:namesMu
	head, tail *Device
	count      int
	// inet6Addrs is the number of IPv6 addresses of the listed devices
	// (the length of inet6_addr_lst), kept as they come and go.
	inet6Addrs int
	// byIndexOrder caches DevicesByIndex; nil after a device comes or
	// goes.
	byIndexOrder []*Device
	lastIndex    IfIndex   // net->ifindex: the last ifindex handed out
	unregCount   int       // dev_unreg_count: devices unregistered, not yet freed
	vxlans       []*Device // vxlan_net's vxlan_list: the vxlans created from this namespace
	loopback     *Device

	// IPv4 and IPv6 configuration (net.ipv4.conf.* / net.ipv6.conf.*).
	IPv4All, IPv4Default IPv4Conf
	IPv6All, IPv6Default IPv6Conf

	fib6 IPv6FIB // the namespace's IPv6 routes, as addrconf drives them
}

// IPv4Conf is the part of net.ipv4.conf.{all,default,DEV} netsim models.
type IPv4Conf struct {
	PromoteSecondaries bool // promote_secondaries
	Forwarding         bool // forwarding
}

// IPv6Conf is the part of net.ipv6.conf.{all,default,DEV} netsim models.
type IPv6Conf struct {
	DisableIPv6    bool // disable_ipv6
	Forwarding     bool // forwarding: joins ff02::2 and subnet-router anycast addresses
	KeepAddrOnDown bool // keep_addr_on_down (only the value 1 is modelled)
	AcceptDAD      int  // accept_dad
	DADTransmits   int  // dad_transmits: the probes of duplicate address detection
}

// NewTable creates a namespace's device table and registers its loopback
// device (ifindex 1). The caller holds RTNL.
//
// Kernel: net_dev_init's per-net setup and loopback_net_init
// (drivers/net/loopback.c).
func (s *Stack) NewTable(t *sim.Task, name string) (*Table, error) {
	s.nextNetID++
	tb := &Table{
		s: s, id: s.nextNetID, name: name,
		byIndex: make(map[IfIndex]*Device), byName: make(map[string]*Device),
		IPv6Default: IPv6Conf{AcceptDAD: 1, DADTransmits: 1}, IPv6All: IPv6Conf{AcceptDAD: 1, DADTransmits: 1},
		fib6: noIPv6FIB{},
	}
	lo, err := loopbackSpec{}.create(t, tb)
	if err != nil {
		return nil, err
	}
	if err := tb.register(t, lo[0], LoopbackIfIndex); err != nil {
		return nil, err
	}
	tb.loopback = lo[0]
	return tb, nil
}

// Name returns the namespace's name.
func (tb *Table) Name() string { return tb.name }

// Stack returns the table's Stack.
func (tb *Table) Stack() *Stack { return tb.s }

// Loopback returns the namespace's loopback device.
func (tb *Table) Loopback() *Device { return tb.loopback }

// Len returns the number of registered devices.
func (tb *Table) Len() int { return tb.count }

// UnregisteringCount returns the devices unregistered but not yet freed
// (dev_unreg_count).
func (tb *Table) UnregisteringCount() int { return tb.unregCount }

// IPv6Routes returns the number of IPv6 routes in the namespace's tables,
// as its IPv6FIB counts them (0 if it does not count: see IPv6FIBCounts).
func (tb *Table) IPv6Routes() int {
	if c, ok := tb.fib6.(IPv6FIBCounts); ok {
		return c.DevRoutes(nil)
	}
	return 0
}

// SetIPv6FIB installs the namespace's IPv6 FIB, which addrconf adds its
// routes to and asks to walk the tables when devices change; nil installs
// one that keeps no routes (the default). Install it before any device of
// the namespace comes up; the caller holds RTNL.
func (tb *Table) SetIPv6FIB(f IPv6FIB) {
	if f == nil {
		f = noIPv6FIB{}
	}
	tb.fib6 = f
}

// IPv6FIB returns the namespace's IPv6 FIB (SetIPv6FIB).
func (tb *Table) IPv6FIB() IPv6FIB { return tb.fib6 }

// ByName returns the registered device named name, or nil. The caller
// holds RTNL.
//
// Kernel: __dev_get_by_name (net/core/dev.c).
func (tb *Table) ByName(name string) *Device { return tb.byName[name] } // +checklocksignore: RTNL held

// ByNameRCU is ByName for a caller that does not hold RTNL (the kernel's
// RCU lookup): safe against concurrent registration, renaming and
// unregistration; the device returned may be going away.
//
// Kernel: dev_get_by_name_rcu (net/core/dev.c).
func (tb *Table) ByNameRCU(name string) *Device {
	tb.namesMu.RLock()
	defer tb.namesMu.RUnlock()
	return tb.byName[name]
}

// ByIndex returns the registered device with ifindex i, or nil.
//
// Kernel: __dev_get_by_index (net/core/dev.c).
func (tb *Table) ByIndex(i IfIndex) *Device { return tb.byIndex[i] }

// Lookup returns the device named name or an ENODEV error.
func (tb *Table) Lookup(name string) (*Device, error) {
	if d := tb.byName[name]; d != nil { // +checklocksignore: RTNL held
		return d, nil
	}
	return nil, errno.Errorf(syscall.ENODEV, "Cannot find device \"%s\"", name)
}

// Find returns the device a request names, the way a netlink message
// names one: by ifindex when index is not 0 (ifi_index, ifa_index,
// RTA_OIF, NHA_OIF, IFLA_LINK), with ENODEV and no message when no device
// has it, as __dev_get_by_index's callers answer; else by name (Lookup).
//
// Kernel: __dev_get_by_index, __dev_get_by_name (net/core/dev.c).
func (tb *Table) Find(index IfIndex, name string) (*Device, error) {
	if index != 0 {
		if d := tb.ByIndex(index); d != nil {
			return d, nil
		}
		return nil, errno.New(syscall.ENODEV, "")
	}
	return tb.Lookup(name)
}

// Devices returns the registered devices in registration order (the order
// `ip link show` lists them in).
func (tb *Table) Devices() []*Device {
	out := make([]*Device, 0, tb.count)
	for d := tb.head; d != nil; d = d.next {
		out = append(out, d)
	}
	return out
}

// DevicesByIndex returns the registered devices in ifindex order: the
// order of the kernel's dev_by_index, in which dumps walk them (`ip link
// show`, `ip addr show`). It is registration order (Devices) unless a
// device was given its ifindex (`ip link add NAME index N`). The slice is
// the Table's until a device comes or goes: the caller must not change it.
//
// Kernel: for_each_netdev_dump (include/linux/netdevice.h), the
// dev_by_index xarray (net/core/dev.c).
func (tb *Table) DevicesByIndex() []*Device {
	if tb.byIndexOrder == nil {
		tb.byIndexOrder = tb.Devices()
		slices.SortFunc(tb.byIndexOrder, func(a, b *Device) int { return cmp.Compare(a.ifindex, b.ifindex) })
	}
	return tb.byIndexOrder
}

// ValidName reports whether name is a valid device name.
//
// Kernel: dev_valid_name (net/core/dev.c).
func ValidName(name string) bool {
	if name == "" || len(name) >= IFNAMSIZ || name == "." || name == ".." {
		return false
	}
	for _, c := range []byte(name) {
		if c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' {
			return false
		}
	}
	return true
}

// checkName validates a requested name as rtnetlink does: too long is the
// netlink policy's ERANGE, otherwise-invalid is EINVAL, taken is EEXIST.
func (tb *Table) checkName(name string) error {
	if len(name) >= IFNAMSIZ {
		return errno.Errorf(syscall.ERANGE, "Attribute failed policy validation (name \"%s\" longer than %d bytes)", name, IFNAMSIZ-1)
	}
	if !ValidName(name) {
		return errno.Errorf(syscall.EINVAL, "Invalid device name \"%s\"", name)
	}
	if tb.byName[name] != nil { // +checklocksignore: RTNL held
		return errno.Errorf(syscall.EEXIST, "Device \"%s\" already exists", name)
	}
	return nil
}

// allocName resolves a name template with one %d to the lowest free
// number, as dev_alloc_name does; a plain name is returned unchanged.
//
// Kernel: __dev_alloc_name (net/core/dev.c).
func (tb *Table) allocName(name string, taken map[string]bool) (string, error) {
	i := strings.Index(name, "%")
	if i < 0 {
		return name, nil
	}
	if name[i:i+min(2, len(name)-i)] != "%d" || strings.Contains(name[i+2:], "%") {
		return "", errno.Errorf(syscall.EINVAL, "Invalid device name template \"%s\"", name)
	}
	prefix, suffix := name[:i], name[i+2:]
	used := map[int]bool{}
	for n := range tb.byName { // +checklocksignore: RTNL held
		if strings.HasPrefix(n, prefix) && strings.HasSuffix(n, suffix) && len(n) > len(prefix)+len(suffix) {
			if v, err := strconv.Atoi(n[len(prefix) : len(n)-len(suffix)]); err == nil && v >= 0 {
				used[v] = true
			}
		}
	}
	for n := range taken {
		if v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(n, prefix), suffix)); err == nil {
			used[v] = true
		}
	}
	for v := 0; v < 32768; v++ {
		if !used[v] {
			cand := prefix + strconv.Itoa(v) + suffix
			if len(cand) >= IFNAMSIZ {
				break
			}
			return cand, nil
		}
	}
	return "", errno.Errorf(syscall.ENFILE, "No free name for template \"%s\"", name)
}

// newIndex hands out the next free ifindex after the last one handed out,
// wrapping around, as the kernel's per-namespace cyclic allocator does: a
// freed ifindex is not reused until the counter comes round again.
//
// Kernel: dev_index_reserve / dev_new_index (net/core/dev.c).
func (tb *Table) newIndex() (IfIndex, error) {
	i := tb.lastIndex
	for range 1 << 20 {
		i++
		if i <= 0 {
			i = 1
		}
		if tb.byIndex[i] == nil {
			tb.lastIndex = i
			return i, nil
		}
	}
	return 0, errno.New(syscall.ENOSPC, "No free ifindex")
}

// nextFreeIndex returns the ifindex newIndex would hand out after last,
// skipping the ifindexes in claimed too, and that ifindex again as the new
// last; 0 when none is free. It changes nothing.
func (tb *Table) nextFreeIndex(last IfIndex, claimed map[IfIndex]bool) (IfIndex, IfIndex) {
	i := last
	for range 1 << 20 {
		i++
		if i <= 0 {
			i = 1
		}
		if tb.byIndex[i] == nil && !claimed[i] {
			return i, i
		}
	}
	return 0, last
}

// register adds a device built by a LinkSpec to the table: name and ifindex
// checks, the address lists, the device list, NETDEV_REGISTER. want is the
// requested ifindex or 0.
//
// Kernel: register_netdevice (net/core/dev.c).
func (tb *Table) register(t *sim.Task, d *Device, want IfIndex) error {
	defer t.Frame("register_netdevice")()
	if d.state != regUninitialized {
		return errno.Errorf(syscall.EINVAL, "device %s is already registered", d.name)
	}
	if err := tb.checkName(d.name); err != nil {
		return err
	}
	switch {
	case want < 0:
		return errno.Errorf(syscall.EINVAL, "Invalid ifindex %d", want)
	case want > 0:
		if tb.byIndex[want] != nil {
			return errno.Errorf(syscall.EBUSY, "ifindex %d is in use", want)
		}
		d.ifindex = want
	default:
		i, err := tb.newIndex()
		if err != nil {
			return err
		}
		d.ifindex = i
	}
	t.Charge(sim.DevRegister, 1)
	d.tbl = tb
	d.uc = tb.s.newAddrList()
	d.mc = tb.s.newAddrList()
	d.state = regRegistered
	d.operState = OperDown
	tb.list(d)
	// A new device has carrier; a stacked one takes its lower device's
	// before it is registered (netif_stacked_transfer_operstate), which
	// is not counted. What changes after registration is (a veth's
	// netif_carrier_off in veth_newlink, a bond's in bond_newlink).
	d.kcarrier = d.link == nil || lowerCarrier(d)
	d.countCarrier(d.carrierNow())
	_ = tb.s.notify(t, EventRegister, d)
	return nil
}

// unlist removes the device from the table's indexes and list.
//
// Kernel: unlist_netdevice (net/core/dev.c).
func (tb *Table) unlist(d *Device) {
	tb.namesMu.Lock()
	delete(tb.byIndex, d.ifindex)
	delete(tb.byName, d.name)
	tb.namesMu.Unlock()
	tb.byIndexOrder = nil
	if d.prev != nil {
		d.prev.next = d.next
	} else {
		tb.head = d.next
	}
	if d.next != nil {
		d.next.prev = d.prev
	} else {
		tb.tail = d.prev
	}
	d.prev, d.next = nil, nil
	tb.count--
	d.listed = false
	tb.inet6Addrs -= d.inet6Len()
}

// ByGroup returns the devices in group g, in registration order.
func (tb *Table) ByGroup(g uint32) []*Device {
	var out []*Device
	for d := tb.head; d != nil; d = d.next {
		if d.group == g {
			out = append(out, d)
		}
	}
	return out
}

func (tb *Table) String() string { return fmt.Sprintf("netns %s", tb.name) }
