// Package neigh models the kernel's neighbour tables as configured state:
// the generic neighbour cache of net/core/neighbour.c with its two
// instances, arp_tbl (net/ipv4/arp.c) and nd_tbl (net/ipv6/ndisc.c).
//
//   - A Table is one of them, shared, as the kernel's are, by every network
//     namespace: an entry belongs to its device's namespace, the dumps
//     filter by namespace, and the garbage collection thresholds
//     (gc_thresh1/2/3, net.ipv4.neigh.default.* in the initial namespace)
//     count the entries of all namespaces together.
//   - An Entry is a struct neighbour, keyed by (device, address): link-layer
//     address, NUD state, flags (NTF_ROUTER, NTF_EXT_LEARNED,
//     NTF_EXT_MANAGED), protocol and the times a dump reports. Update is
//     __neigh_update, with its override and administrative rules; Create
//     is ___neigh_create with neigh_alloc's forced garbage collection and
//     its ENOBUFS.
//   - Proxy entries (struct pneigh_entry) are kept apart (proxy.go).
//   - Devices going down, losing carrier, changing address or going away
//     flush entries as neigh_ifdown, neigh_carrier_down and
//     neigh_changeaddr do (Flush).
//   - The state machine runs on timers once SetTimers gives the table a
//     work queue (timer.go): REACHABLE ageing to STALE, DELAY turning
//     PROBE, INCOMPLETE and PROBE entries probing until they fail, managed
//     entries probed every interval_probe_time_ms, and the periodic
//     garbage collection of stale and failed entries.
//
// netsim moves no packets: the entries the kernel makes from traffic (ARP
// and neighbour discovery, the NOARP entries of the multicast groups an
// interface sends to) do not exist here, and no probe is ever answered.
//
// A Table is guarded by RTNL: every method is called with it held.
package neigh

import (
	"net/netip"
	"slices"
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// State is a neighbour's NUD state (NUD_*, include/uapi/linux/neighbour.h).
// The zero State is NUD_NONE.
type State uint16

const (
	StateNone       State = 0x00 // NUD_NONE
	StateIncomplete State = 0x01 // NUD_INCOMPLETE
	StateReachable  State = 0x02 // NUD_REACHABLE
	StateStale      State = 0x04 // NUD_STALE
	StateDelay      State = 0x08 // NUD_DELAY
	StateProbe      State = 0x10 // NUD_PROBE
	StateFailed     State = 0x20 // NUD_FAILED
	StateNoARP      State = 0x40 // NUD_NOARP
	StatePermanent  State = 0x80 // NUD_PERMANENT

	// StateValid are the states with a usable link-layer address (NUD_VALID).
	StateValid = StatePermanent | StateNoARP | StateReachable | StateProbe | StateStale | StateDelay
	// StateConnected are the states confirmed now (NUD_CONNECTED).
	StateConnected = StatePermanent | StateNoARP | StateReachable
	// StateInTimer are the states the kernel runs a timer in (NUD_IN_TIMER).
	StateInTimer = StateIncomplete | StateReachable | StateDelay | StateProbe
)

// Flags are a neighbour's NTF_* flags: ndm_flags in the low byte,
// NDA_FLAGS_EXT's above it (shifted by NTF_EXT_SHIFT, as the kernel keeps
// them). The zero Flags is none.
type Flags uint32

const (
	FlagUse        Flags = 0x01   // NTF_USE
	FlagSelf       Flags = 0x02   // NTF_SELF
	FlagMaster     Flags = 0x04   // NTF_MASTER
	FlagProxy      Flags = 0x08   // NTF_PROXY
	FlagExtLearned Flags = 0x10   // NTF_EXT_LEARNED
	FlagOffloaded  Flags = 0x20   // NTF_OFFLOADED
	FlagSticky     Flags = 0x40   // NTF_STICKY
	FlagRouter     Flags = 0x80   // NTF_ROUTER
	FlagManaged    Flags = 1 << 8 // NTF_EXT_MANAGED << NTF_EXT_SHIFT (NTF_MANAGED)
	FlagExtLocked  Flags = 1 << 9 // NTF_EXT_LOCKED << NTF_EXT_SHIFT
)

// The NEIGH_UPDATE_F_* flags of an update (include/net/neighbour.h).
const (
	UpdateOverride         uint32 = 1 << 0  // NEIGH_UPDATE_F_OVERRIDE
	UpdateWeakOverride     uint32 = 1 << 1  // NEIGH_UPDATE_F_WEAK_OVERRIDE
	UpdateOverrideIsRouter uint32 = 1 << 2  // NEIGH_UPDATE_F_OVERRIDE_ISROUTER
	UpdateUse              uint32 = 1 << 3  // NEIGH_UPDATE_F_USE
	UpdateManaged          uint32 = 1 << 4  // NEIGH_UPDATE_F_MANAGED
	UpdateExtLearned       uint32 = 1 << 5  // NEIGH_UPDATE_F_EXT_LEARNED
	UpdateIsRouter         uint32 = 1 << 30 // NEIGH_UPDATE_F_ISROUTER
	UpdateAdmin            uint32 = 1 << 31 // NEIGH_UPDATE_F_ADMIN
)

// Defaults of a table's parameters (neigh_table_init's arp_tbl and nd_tbl,
// and their neigh_parms).
const (
	DefaultGCThresh1         = 128
	DefaultGCThresh2         = 512
	DefaultGCThresh3         = 1024
	DefaultGCInterval        = 30 * time.Second
	DefaultBaseReachableTime = 30 * time.Second
	// gcMinAge is how recently updated an entry forced gc keeps (5 * HZ).
	gcMinAge = 5 * time.Second
)

// Entry is one neighbour (struct neighbour). Its fields are read by the
// table's users under RTNL and changed only by the Table.
type Entry struct {
	Dev      *netdev.Device
	Addr     netip.Addr
	LLAddr   netdev.MAC // the link-layer address; meaningful in a StateValid state or once set
	HasLL    bool       // an address was ever set (neigh->ha is not all zero for a dump)
	State    State
	Flags    Flags   // FlagRouter, FlagExtLearned, FlagManaged
	Protocol uint8   // NDA_PROTOCOL, 0 when none was given
	Type     rt.Type // neigh->type: RTN_UNICAST, RTN_MULTICAST, RTN_BROADCAST, RTN_LOCAL
	Probes   uint32

	// Used, Confirmed and Updated are neigh->used, ->confirmed and
	// ->updated: when the entry was last used, confirmed reachable, and
	// changed.
	Used, Confirmed, Updated sim.Time

	seq   uint64 // creation order: the order of the dumps
	dead  bool
	onGC  bool // on the gc list (neigh->gc_list): not exempt from gc
	gcSeq uint64

	timerArmed bool   // neigh->timer is pending (and holds a reference)
	timerGen   uint64 // bumps on every arming and stop: an older firing does nothing
	onManaged  bool   // on the managed list (neigh->managed_list)
}

// Refcnt is the reference count a dump reports (ndm_refcnt: the kernel's
// count less the table's own): one for a pending timer.
func (e *Entry) Refcnt() uint32 {
	if e.timerArmed {
		return 1
	}
	return 0
}

// exempt reports whether an entry with state s and flags f is exempt from
// garbage collection (kept off the gc list and out of gc_entries).
func exempt(s State, f Flags) bool {
	return s&StatePermanent != 0 || f&FlagExtLearned != 0
}

type key struct {
	dev  *netdev.Device
	addr netip.Addr
}

// Stats are the table's counters (struct neigh_statistics, as
// /proc/net/stat/arp_cache shows them).
type Stats struct {
	Allocs, Destroys, Lookups, Hits, ForcedGCRuns, TableFulls uint64
	PeriodicGCRuns, ResFailed                                 uint64
}

// Notifier receives the table's notifications: RTM_NEWNEIGH (del false)
// and RTM_DELNEIGH of an entry. req: the change is the request's own
// (the update of a neigh_add or neigh_delete), whose origin it carries.
type Notifier interface {
	NeighMsg(t *sim.Task, e *Entry, del, req bool)
}

// Table is a neighbour table (struct neigh_table). The zero Table is not
// usable: use NewARP or NewND.
type Table struct {
	family rt.Family
	keyLen int
	id     string

	byKey map[key]*Entry
	byDev map[*netdev.Device]*devList // dev->neighbours
	list  []*Entry                    // every entry, in creation order; dead ones compacted away
	deadN int
	seq   uint64

	gcList    []*Entry // the gc list in its order; dead or exempt ones compacted away
	gcStale   int
	gcEntries int // tbl->gc_entries
	gcSeq     uint64

	proxyB *proxyBuckets // the proxy entries

	// GCThresh1, GCThresh2, GCThresh3 and GCInterval are the table's
	// gc_thresh1/2/3 and gc_interval.
	GCThresh1, GCThresh2, GCThresh3 int
	GCInterval                      time.Duration
	// Parms are the default parms every entry uses. Change the base
	// reachable time with SetBaseReachableTime, which draws a new
	// reachable time.
	Parms     Parms
	lastFlush sim.Time
	tm        timerState

	stats  Stats
	notify Notifier
}

// NewARP returns the IPv4 table (arp_tbl, "arp_cache").
//
// Kernel: arp_init → neigh_table_init (net/ipv4/arp.c).
func NewARP(n Notifier) *Table { return newTable(rt.FamilyInet, 4, "arp_cache", n, 1) }

// NewND returns the IPv6 table (nd_tbl, "ndisc_cache").
//
// Kernel: ndisc_init → neigh_table_init (net/ipv6/ndisc.c).
func NewND(n Notifier) *Table { return newTable(rt.FamilyInet6, 16, "ndisc_cache", n, 2) }

// newTable returns an empty table whose reachable times are drawn from a
// generator seeded with seed.
func newTable(f rt.Family, keyLen int, id string, n Notifier, seed uint64) *Table {
	tb := &Table{
		family: f, keyLen: keyLen, id: id,
		byKey: map[key]*Entry{}, byDev: map[*netdev.Device]*devList{},
		GCThresh1: DefaultGCThresh1, GCThresh2: DefaultGCThresh2, GCThresh3: DefaultGCThresh3,
		GCInterval: DefaultGCInterval,
		notify:     n,
	}
	tb.initTimers(seed)
	return tb
}

// Family returns the table's address family.
func (tb *Table) Family() rt.Family { return tb.family }

// KeyLen returns the length of the table's addresses (tbl->key_len).
func (tb *Table) KeyLen() int { return tb.keyLen }

// ID returns the table's name ("arp_cache", "ndisc_cache").
func (tb *Table) ID() string { return tb.id }

// Len returns the number of entries of every namespace (tbl->entries).
func (tb *Table) Len() int { return len(tb.byKey) }

// GCEntries returns the number of entries not exempt from gc
// (tbl->gc_entries).
func (tb *Table) GCEntries() int { return tb.gcEntries }

// Stats returns the table's counters.
func (tb *Table) Stats() Stats { return tb.stats }

// Lookup returns the entry of addr on dev, or nil. It charges one
// sim.NeighVisit.
//
// Kernel: neigh_lookup (net/core/neighbour.c).
func (tb *Table) Lookup(t *sim.Task, addr netip.Addr, dev *netdev.Device) *Entry {
	t.Charge(sim.NeighVisit, 1)
	tb.stats.Lookups++
	e := tb.byKey[key{dev, addr}]
	if e != nil {
		tb.stats.Hits++
	}
	return e
}

// Create makes an entry of addr on dev in state NUD_NONE (or the state
// the protocol's constructor gives it), with flags (FlagExtLearned,
// FlagManaged) set. typ is the address's type as the caller found it
// (IPv4: inet_addr_type_dev_table; IPv6: RTN_MULTICAST or RTN_UNICAST). An entry not exempt from gc counts against the
// thresholds: past gc_thresh3, or past gc_thresh2 when the last forced gc
// is more than five seconds old, a forced gc runs first, and when it
// frees nothing past gc_thresh3 the create fails with ENOBUFS.
//
// Kernel: ___neigh_create, neigh_alloc (net/core/neighbour.c);
// arp_constructor (net/ipv4/arp.c), ndisc_constructor (net/ipv6/ndisc.c).
func (tb *Table) Create(t *sim.Task, addr netip.Addr, dev *netdev.Device, typ rt.Type, flags Flags, exemptGC bool) (*Entry, error) {
	now := t.Now()
	if !exemptGC {
		n := tb.gcEntries
		if n >= tb.GCThresh3 || n >= tb.GCThresh2 && now.Sub(tb.lastFlush) > gcMinAge {
			if tb.ForcedGC(t) == 0 && n >= tb.GCThresh3 {
				tb.stats.TableFulls++
				return nil, errNoBufs
			}
		}
	}
	t.Charge(sim.NeighAdd, 1)
	tb.stats.Allocs++
	tb.seq++
	e := &Entry{
		Dev: dev, Addr: addr, Type: typ, Flags: flags & (FlagExtLearned | FlagManaged),
		Used: now, Updated: now, Confirmed: now.Add(-2 * tb.Parms.BaseReachableTime),
		seq: tb.seq,
	}
	tb.construct(e)
	tb.byKey[key{dev, addr}] = e
	dl := tb.byDev[dev]
	if dl == nil {
		dl = &devList{}
		tb.byDev[dev] = dl
	}
	dl.l = append(dl.l, e)
	tb.list = append(tb.list, e)
	if !exemptGC {
		tb.gcAdd(e)
	}
	tb.updateManagedList(t, e)
	tb.armPeriodic(t)
	return e, nil
}

// construct is the protocol's constructor: a multicast address, any
// address on a loopback device or one without ARP (IFF_NOARP: a dummy),
// and an IPv4 broadcast address have no resolution (NUD_NOARP) and their
// link-layer address at once: the multicast mapping, the device's own,
// or its broadcast address.
//
// Kernel: arp_constructor (net/ipv4/arp.c), ndisc_constructor
// (net/ipv6/ndisc.c).
func (tb *Table) construct(e *Entry) {
	switch {
	case e.Addr.IsMulticast() && e.Addr.Is4():
		a := e.Addr.As4()
		e.LLAddr = netdev.MAC{0x01, 0x00, 0x5e, a[1] & 0x7f, a[2], a[3]} // ip_eth_mc_map
	case e.Addr.IsMulticast():
		a := e.Addr.As16()
		e.LLAddr = netdev.MAC{0x33, 0x33, a[12], a[13], a[14], a[15]} // ipv6_eth_mc_map
	case e.Dev.Flags()&(netdev.FlagLoopback|netdev.FlagNoARP) != 0:
		e.LLAddr = e.Dev.Addr()
	case e.Type == rt.TypeBroadcast && e.Addr.Is4():
		e.LLAddr = e.Dev.Broadcast()
	default:
		return
	}
	e.State, e.HasLL = StateNoARP, true
}

// gcAdd puts e at the tail of the gc list.
func (tb *Table) gcAdd(e *Entry) {
	tb.gcSeq++
	e.onGC, e.gcSeq = true, tb.gcSeq
	tb.gcList = append(tb.gcList, e)
	tb.gcEntries++
}

// gcRemove takes e off the gc list.
func (tb *Table) gcRemove(e *Entry) {
	if !e.onGC {
		return
	}
	e.onGC = false
	tb.gcEntries--
	tb.gcStale++
	if tb.gcStale > len(tb.gcList)/2 {
		tb.gcList = slices.DeleteFunc(tb.gcList, func(x *Entry) bool { return !x.onGC || x.dead })
		tb.gcStale = 0
	}
}

// updateGCList puts e on or takes it off the gc list after its state or
// flags changed, as exemption now says.
//
// Kernel: neigh_update_gc_list (net/core/neighbour.c).
func (tb *Table) updateGCList(e *Entry) {
	if e.dead {
		return
	}
	ex := exempt(e.State, e.Flags)
	switch {
	case ex && e.onGC:
		tb.gcRemove(e)
	case !ex && !e.onGC:
		tb.gcAdd(e)
	}
}

// ForcedGC removes entries not exempt from gc, in the gc list's order,
// that nobody else refers to and that failed, have no resolution
// (NUD_NOARP), are multicast (IPv6) or were last updated more than five
// seconds ago, until gc_entries is down to gc_thresh2. It returns how many
// it removed, each with its RTM_DELNEIGH.
//
// Kernel: neigh_forced_gc (net/core/neighbour.c).
func (tb *Table) ForcedGC(t *sim.Task) int {
	tb.stats.ForcedGCRuns++
	maxClean := tb.gcEntries - tb.GCThresh2
	now := t.Now()
	shrunk, visited := 0, 0
	for _, e := range slices.Clone(tb.gcList) {
		if !e.onGC || e.dead {
			continue
		}
		visited++
		if e.State == StateFailed || e.State == StateNoARP ||
			tb.family == rt.FamilyInet6 && e.Addr.IsMulticast() ||
			now.Sub(e.Updated) > gcMinAge || e.Updated > now {
			tb.remove(t, e)
			shrunk++
		}
		if shrunk >= maxClean {
			break
		}
	}
	t.Charge(sim.NeighVisit, int64(visited))
	tb.lastFlush = now
	return shrunk
}

// Update changes e as an update with flags (NEIGH_UPDATE_F_*) does: its
// link-layer address (lladdr, when hasLL) and its state, under the
// override rules, then its flags, and sends the RTM_NEWNEIGH the change
// calls for. It returns the kernel's error and extack: EPERM for a
// permanent or NOARP entry changed without UpdateAdmin, EINVAL "No link
// layer address given" for a valid state asked of an entry without an
// address. Its notification carries the request's origin.
//
// Kernel: __neigh_update, neigh_update_flags, neigh_update_is_router
// (net/core/neighbour.c).
func (tb *Table) Update(t *sim.Task, e *Entry, lladdr netdev.MAC, hasLL bool, state State, flags uint32) error {
	old := e.State
	notify, gcUpdate, managedUpdate := false, false, false
	newState := state
	updateIsRouter := false
	defer func() {
		if updateIsRouter {
			want := Flags(0)
			if flags&UpdateIsRouter != 0 {
				want = FlagRouter
			}
			if (e.Flags^want)&FlagRouter != 0 {
				e.Flags ^= FlagRouter
				notify = true
			}
		}
		if (newState^old)&StatePermanent != 0 || gcUpdate {
			tb.updateGCList(e)
		}
		if managedUpdate {
			tb.updateManagedList(t, e)
		}
		if notify && tb.notify != nil {
			tb.notify.NeighMsg(t, e, false, true)
		}
		tb.armPeriodic(t)
	}()
	if flags&UpdateAdmin == 0 && old&(StateNoARP|StatePermanent) != 0 {
		newState = old
		return errPerm
	}
	if e.dead {
		newState = old
		return errDead
	}
	// neigh_update_flags: an administrative update sets the flags it says.
	if flags&UpdateAdmin != 0 {
		want := Flags(0)
		if flags&UpdateExtLearned != 0 {
			want |= FlagExtLearned
		}
		if flags&UpdateManaged != 0 {
			want |= FlagManaged
		}
		if d := (e.Flags ^ want) & (FlagExtLearned | FlagManaged); d != 0 {
			e.Flags ^= d
			notify = true
			gcUpdate = d&FlagExtLearned != 0 || gcUpdate
			managedUpdate = d&FlagManaged != 0
		}
	}
	if flags&(UpdateUse|UpdateManaged) != 0 {
		// The entry is only to be resolved: it keeps its state but for
		// NUD_PERMANENT; neigh_add's neigh_event_send (EventSend, from
		// rtnl's NewNeigh) then starts the resolution.
		newState = old &^ StatePermanent
		e.State = newState
		return nil
	}
	if newState&StateValid == 0 {
		tb.delTimer(e)
		e.State = newState
		notify = old&StateValid != 0
		if old&(StateIncomplete|StateProbe) != 0 && newState&StateFailed != 0 {
			e.Updated = t.Now() // neigh_invalidate
			tb.stats.ResFailed++
			notify = true
		}
		return nil
	}
	// The link-layer address: the given one, else the cached one when
	// valid.
	ll, same := lladdr, false
	switch {
	case hasLL:
		same = old&StateValid != 0 && e.HasLL && lladdr == e.LLAddr
	case old&StateValid == 0:
		newState = old
		return errNoLLAddr
	default:
		ll, same = e.LLAddr, true
	}
	if newState&StateConnected != 0 {
		e.Confirmed = t.Now()
	}
	updateIsRouter = flags&UpdateOverrideIsRouter != 0
	if old&StateValid != 0 {
		if !same && flags&UpdateOverride == 0 {
			updateIsRouter = false
			if flags&UpdateWeakOverride != 0 && old&StateConnected != 0 {
				ll, same, newState = e.LLAddr, true, StateStale
			} else {
				newState = old
				return nil
			}
		} else if same && newState == StateStale && flags&UpdateAdmin == 0 {
			newState = old
		}
	}
	if newState != old || !same {
		e.Updated = t.Now()
	}
	if newState != old {
		tb.delTimer(e)
		if newState&StateProbe != 0 {
			e.Probes = 0
		}
		if newState&StateInTimer != 0 {
			at := t.Now()
			if newState&StateReachable != 0 {
				at = at.Add(tb.tm.reachableTime)
			}
			tb.addTimer(t, e, at)
		}
		e.State = newState
		notify = true
	}
	if !same {
		e.LLAddr, e.HasLL = ll, true
		if newState&StateConnected == 0 {
			e.Confirmed = t.Now().Add(-2 * tb.Parms.BaseReachableTime)
		}
		notify = true
	}
	return nil
}

// Remove deletes e from the table with its RTM_DELNEIGH, which carries
// no request's origin.
//
// Kernel: neigh_remove_one → neigh_mark_dead, neigh_cleanup_and_release
// (net/core/neighbour.c).
func (tb *Table) Remove(t *sim.Task, e *Entry) { tb.remove(t, e) }

func (tb *Table) remove(t *sim.Task, e *Entry) {
	if e.dead {
		return
	}
	tb.gcRemove(e)
	tb.delTimer(e)
	e.dead = true
	tb.updateManagedList(t, e)
	delete(tb.byKey, key{e.Dev, e.Addr})
	if dl := tb.byDev[e.Dev]; dl != nil {
		dl.dead++
		if dl.dead == len(dl.l) {
			delete(tb.byDev, e.Dev)
		} else if dl.dead > len(dl.l)/2 {
			dl.l = slices.DeleteFunc(dl.l, func(x *Entry) bool { return x.dead })
			dl.dead = 0
		}
	}
	tb.deadN++
	if tb.deadN > len(tb.list)/2 {
		tb.list = slices.DeleteFunc(tb.list, func(x *Entry) bool { return x.dead })
		tb.deadN = 0
	}
	tb.stats.Destroys++
	t.Charge(sim.NeighRemove, 1)
	if tb.notify != nil {
		tb.notify.NeighMsg(t, e, true, false)
	}
}

// Flush removes dev's entries, each with its RTM_DELNEIGH: all of them, or
// with skipPerm those not NUD_PERMANENT (a carrier loss). With proxies
// the device's proxy entries go too (all of them, or with skipPerm the
// ones not permanent).
//
// Kernel: neigh_flush_dev, __neigh_ifdown (neigh_ifdown,
// neigh_carrier_down), neigh_changeaddr, pneigh_ifdown_and_unlock
// (net/core/neighbour.c).
func (tb *Table) Flush(t *sim.Task, dev *netdev.Device, skipPerm, proxies bool) {
	var l []*Entry
	if dl := tb.byDev[dev]; dl != nil {
		l = slices.Clone(dl.l)
	}
	t.Charge(sim.NeighVisit, int64(tb.DevEntries(dev)))
	for _, e := range l {
		if e.dead || skipPerm && e.State&StatePermanent != 0 {
			continue
		}
		tb.remove(t, e)
	}
	if proxies {
		tb.proxyFlush(t, dev, skipPerm)
	}
}

// Walk calls fn for the entries in creation order from the first whose
// creation is after cursor (0: from the first), until fn returns false;
// it returns the cursor of the last entry fn accepted. Each entry
// walked is charged as a sim.NeighVisit, as a dump walks every entry of
// every namespace.
//
// Kernel: neigh_dump_table (net/core/neighbour.c).
func (tb *Table) Walk(t *sim.Task, cursor uint64, fn func(e *Entry) bool) uint64 {
	i, _ := slices.BinarySearchFunc(tb.list, cursor+1, func(e *Entry, s uint64) int {
		switch {
		case e.seq < s:
			return -1
		case e.seq > s:
			return 1
		}
		return 0
	})
	n := 0
	defer func() { t.Charge(sim.NeighVisit, int64(n)) }()
	for ; i < len(tb.list); i++ {
		e := tb.list[i]
		if e.dead {
			continue
		}
		n++
		if !fn(e) {
			return cursor
		}
		cursor = e.seq
	}
	return cursor
}

// DevEntries returns the number of dev's entries.
func (tb *Table) DevEntries(dev *netdev.Device) int {
	dl := tb.byDev[dev]
	if dl == nil {
		return 0
	}
	return len(dl.l) - dl.dead
}

// devList is a device's entries in creation order (dev->neighbours): the
// removed ones are marked dead and compacted away once they are half of
// it, so that removing one is not a copy of the list.
type devList struct {
	l    []*Entry
	dead int
}
