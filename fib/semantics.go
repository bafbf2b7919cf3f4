// Route semantics: fib_info shared between routes, their nexthops, the
// gateway checks and the reaction to devices going down and up. Modelled on
// net/ipv4/fib_semantics.c.

package fib

import (
	"iter"
	"net/netip"
	"slices"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// typeProps is fib_props: the lookup error of each route type and the
// widest scope it may have.
var typeProps = [typeMax + 1]struct {
	err   syscall.Errno
	scope Scope
}{
	TypeUnspec:      {0, ScopeNowhere},
	TypeUnicast:     {0, ScopeUniverse},
	TypeLocal:       {0, ScopeHost},
	TypeBroadcast:   {0, ScopeLink},
	TypeAnycast:     {0, ScopeLink},
	TypeMulticast:   {0, ScopeUniverse},
	TypeBlackhole:   {syscall.EINVAL, ScopeUniverse},
	TypeUnreachable: {syscall.EHOSTUNREACH, ScopeUniverse},
	TypeProhibit:    {syscall.EACCES, ScopeUniverse},
	TypeThrow:       {syscall.EAGAIN, ScopeUniverse},
	TypeNAT:         {syscall.EINVAL, ScopeNowhere},
	TypeXResolve:    {syscall.EINVAL, ScopeNowhere},
}

// config is struct fib_config: a route request after rtm_to_fib_config.
type config struct {
	dst      uint32
	dstLen   uint8
	tos      uint8
	table    uint32
	protocol Protocol
	scope    Scope
	typ      Type
	flags    NHFlags
	oif      *netdev.Device
	gw       netip.Addr
	priority uint32
	prefsrc  netip.Addr
	nhID     nexthop.ID
	mp       []Path
	mode     rt.NLMFlags
	kernel   bool // a route the kernel adds for an address (fib_magic): no request's header
	// mx is fc_mx: the request's metrics, nil without RTA_METRICS
	// (converted by createInfo; compared as given by delete).
	mx *Metrics
}

// fibNH is a classic nexthop built into a fib_info (struct fib_nh).
type fibNH struct {
	parent *fibInfo
	dev    *netdev.Device // fib_nh_dev, resolved by fib_check_nh
	oif    netdev.IfIndex // fib_nh_oif
	gw     netip.Addr     // fib_nh_gw4 (or gw6)
	flags  NHFlags        // fib_nh_flags
	scope  Scope          // fib_nh_scope
	weight int            // fib_nh_weight

	// fib_info_devhash: the nexthops on the same device.
	devPrev, devNext *fibNH
	hashed           bool
}

// fibInfo is struct fib_info: everything routes with the same nexthops,
// priority, prefsrc, protocol, scope, type and table share.
type fibInfo struct {
	f       *FIB
	nh      *nexthop.Nexthop // fi->nh: a nexthop object, or nil
	nhs     []fibNH          // fi->fib_nh: classic nexthops
	prefsrc netip.Addr
	treeref int // fib_treeref: routes (fib_alias) using it

	flags    NHFlags
	priority uint32
	tbID     uint32
	idx      uint32 // in the FIB's infoTable, while live

	// Links by infoTable number (0: none), which the garbage collector
	// need not scan as it would pointers.
	hashNext     uint32 // fib_info_hash chain (same key)
	lprev, lnext uint32 // fib_info_laddrhash: same prefsrc

	protocol Protocol
	scope    Scope
	typ      Type

	// mx is fib_metrics: nil for a fib_info without metrics (the kernel's
	// shared dst_default_metrics).
	mx *Metrics
}

// released is fib_dead: the fib_info was released, its number (idx) given
// back to the infoTable.
func (fi *fibInfo) released() bool { return fi.idx == 0 }

// MarkDead sets RTNH_F_DEAD so the next FIB flush removes the routes that
// use the fib_info (nexthop.FIBUser, called by nexthop removal).
//
// Kernel: __remove_nexthop_fib (net/ipv4/nexthop.c).
func (fi *fibInfo) MarkDead() { fi.setFlags(fi.flags | FlagDead) }

// setFlags sets fi's flags (fib_flags), keeping the FIB's copy of the dead
// flag that table walks read (infoTable.dead) in step. Every change of a
// linked fib_info's flags goes through it.
func (fi *fibInfo) setFlags(fl NHFlags) {
	if fl&^fi.flags&(FlagDead|FlagLinkDown) != 0 && fi.f != nil {
		fi.f.flagGen++
	}
	fi.flags = fl
	if fi.idx != 0 {
		fi.f.fis.dead[fi.idx] = fl&FlagDead != 0
	}
}

// RouteScope returns the routes' scope (nexthop.ScopedFIBUser).
func (fi *fibInfo) RouteScope() uint8 { return uint8(fi.scope) }

// nhInfoKey is what fib_find_info_nh compares: the fib_infos of routes
// that use a nexthop object.
type nhInfoKey struct {
	nhID     nexthop.ID
	priority uint32
	tbID     uint32
	prefsrc  uint32
	flags    NHFlags
	protocol Protocol
	scope    Scope
	typ      Type
}

// infoKey is what fib_info_hashfn and fib_find_info compare for classic
// nexthops, minus the nexthops beyond the first (compared on the hash
// chain).
type infoKey struct {
	priority uint32
	tbID     uint32
	prefsrc  uint32
	flags    NHFlags
	nhs      int
	protocol Protocol
	scope    Scope
	typ      Type
	oif      netdev.IfIndex
	nhFlags  NHFlags
	nhScope  Scope
	weight   int
	gw       [16]byte
}

func addr4(a netip.Addr) uint32 {
	if !a.Is4() {
		return 0
	}
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func addrFrom4(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

func gwKey(a netip.Addr) [16]byte {
	if !a.IsValid() {
		return [16]byte{}
	}
	return a.As16()
}

func (fi *fibInfo) nhKey() nhInfoKey {
	return nhInfoKey{nhID: fi.nh.ID(), priority: fi.priority, tbID: fi.tbID, prefsrc: addr4(fi.prefsrc),
		flags: fi.flags &^ compareMask, protocol: fi.protocol, scope: fi.scope, typ: fi.typ}
}

func (fi *fibInfo) makeKey() infoKey {
	k := infoKey{
		priority: fi.priority, tbID: fi.tbID, prefsrc: addr4(fi.prefsrc),
		flags: fi.flags &^ compareMask, protocol: fi.protocol, scope: fi.scope, typ: fi.typ,
	}
	k.nhs = len(fi.nhs)
	if len(fi.nhs) > 0 {
		nh := &fi.nhs[0]
		k.oif, k.nhFlags, k.nhScope, k.weight, k.gw = nh.oif, nh.flags&^compareMask, nh.scope, nh.weight, gwKey(nh.gw)
	}
	return k
}

// nhComp is nh_comp for two fib_infos with the same key: the remaining
// classic nexthops must match too.
func nhComp(a, b *fibInfo) bool {
	if a.nh != nil || b.nh != nil {
		return a.nh == b.nh
	}
	if len(a.nhs) != len(b.nhs) {
		return false
	}
	for i := range a.nhs {
		x, y := &a.nhs[i], &b.nhs[i]
		if x.oif != y.oif || x.gw != y.gw || x.scope != y.scope || x.weight != y.weight ||
			(x.flags^y.flags)&^compareMask != 0 {
			return false
		}
	}
	return true
}

// hash mixes the key into the 64 bits fib_info_hash is indexed by (a Go
// map keyed by the whole struct hashes some 90 bytes per lookup).
func (k *infoKey) hash() uint64 {
	h := uint64(k.priority)<<32 | uint64(k.tbID)
	h = mix(h ^ uint64(k.prefsrc)<<32 ^ uint64(k.flags))
	h = mix(h ^ uint64(k.nhs)<<40 ^ uint64(k.protocol)<<32 ^ uint64(k.scope)<<24 ^ uint64(k.typ)<<16 ^ uint64(k.nhScope))
	h = mix(h ^ uint64(uint32(k.oif))<<32 ^ uint64(k.nhFlags) ^ uint64(k.weight)<<48)
	for i := 0; i < 16; i += 8 {
		var w uint64
		for _, b := range k.gw[i : i+8] {
			w = w<<8 | uint64(b)
		}
		h = mix(h ^ w)
	}
	return h
}

// mix is splitmix64's finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// findInfo is fib_find_info for classic nexthops: an existing fib_info
// with the same configuration.
func (f *FIB) findInfo(k infoKey, nfi *fibInfo) *fibInfo {
	for fi := f.infos[k.hash()]; fi != nil; fi = f.fis.get(fi.hashNext) {
		f.work.infos++
		if fi.makeKey() == k && nhComp(fi, nfi) && metricsEqual(fi.mx, nfi.mx) {
			return fi
		}
	}
	return nil
}

// findInfoNH is fib_find_info_nh: an existing fib_info with the same
// nexthop object and configuration.
func (f *FIB) findInfoNH(k nhInfoKey) *fibInfo {
	for fi := f.nhInfos.head(k.nhID); fi != nil; fi = f.fis.get(fi.hashNext) {
		f.work.infos++
		if fi.nhKey() == k {
			return fi
		}
	}
	return nil
}

// nhInfoIndex is fib_info_hash for the fib_infos of routes that use a
// nexthop object: for each nexthop id, the chain of its fib_infos, newest
// first. Ids below nhDenseMax (all the ids a big setup allocates in order)
// index a slice, where a map would hash the id twice per route; others go
// to a map. The slice holds the head's number in the FIB's infoTable, not
// a pointer, so the garbage collector has nothing to scan in it. A chain
// holds linked fib_infos only (linkInfo adds, releaseInfo takes out, each
// while the fib_info has its number). Its fis is the FIB's infoTable.
type nhInfoIndex struct {
	fis    *infoTable
	dense  []uint32 // head's infoTable index, 0 for none
	sparse map[nexthop.ID]*fibInfo
}

// nhDenseMax bounds the ids the slice covers (4 MB at most).
const nhDenseMax = 1 << 20

// head returns the first fib_info of id's chain.
func (x *nhInfoIndex) head(id nexthop.ID) *fibInfo {
	if id < nhDenseMax {
		if int(id) < len(x.dense) {
			if i := x.dense[id]; i != 0 {
				return x.fis.at(i)
			}
		}
		return nil
	}
	return x.sparse[id]
}

// setHead makes fi (possibly nil) the first fib_info of id's chain.
func (x *nhInfoIndex) setHead(id nexthop.ID, fi *fibInfo) {
	if id >= nhDenseMax {
		if fi == nil {
			delete(x.sparse, id)
			return
		}
		if x.sparse == nil {
			x.sparse = make(map[nexthop.ID]*fibInfo)
		}
		x.sparse[id] = fi
		return
	}
	if int(id) >= len(x.dense) {
		if fi == nil {
			return
		}
		n := min(max(int(id)+1, 2*len(x.dense), 64), nhDenseMax)
		x.dense = append(x.dense, make([]uint32, n-len(x.dense))...)
	}
	if fi == nil {
		x.dense[id] = 0
		return
	}
	if fi.idx == 0 {
		panic("fib: an unlinked fib_info in the nexthop fib_info hash")
	}
	x.dense[id] = fi.idx
}

// add puts fi at the head of id's chain.
func (x *nhInfoIndex) add(id nexthop.ID, fi *fibInfo) {
	fi.hashNext = num(x.head(id))
	x.setHead(id, fi)
}

// del takes fi out of id's chain.
func (x *nhInfoIndex) del(id nexthop.ID, fi *fibInfo) {
	if p := x.head(id); p == fi {
		x.setHead(id, x.fis.get(fi.hashNext))
	} else {
		unlinkAfter(x.fis, p, fi)
	}
	fi.hashNext = 0
}

// all yields each id with a chain and the chain's first fib_info.
func (x *nhInfoIndex) all() iter.Seq2[nexthop.ID, *fibInfo] {
	return func(yield func(nexthop.ID, *fibInfo) bool) {
		for id, i := range x.dense {
			if i != 0 && !yield(nexthop.ID(id), x.fis.at(i)) {
				return
			}
		}
		for id, fi := range x.sparse {
			if !yield(id, fi) {
				return
			}
		}
	}
}

// chainAdd puts fi at the head of the hash chain of key k.
func chainAdd[K comparable](m map[K]*fibInfo, k K, fi *fibInfo) {
	fi.hashNext = num(m[k])
	m[k] = fi
}

// chainDel takes fi out of the hash chain of key k.
func chainDel[K comparable](fis *infoTable, m map[K]*fibInfo, k K, fi *fibInfo) {
	switch p := m[k]; {
	case p == fi && fi.hashNext == 0:
		delete(m, k)
	case p == fi:
		m[k] = fis.get(fi.hashNext)
	default:
		unlinkAfter(fis, p, fi)
	}
	fi.hashNext = 0
}

// unlinkAfter takes fi out of the hash chain that goes on from p (not fi).
func unlinkAfter(fis *infoTable, p, fi *fibInfo) {
	for ; p != nil; p = fis.get(p.hashNext) {
		if p.hashNext == fi.idx {
			p.hashNext = fi.hashNext
			return
		}
	}
}

// linkInfo puts a new fib_info in the hash tables and on its nexthop's or
// devices' lists (the end of fib_create_info).
func (f *FIB) linkInfo(fi *fibInfo) {
	fi.treeref = 1
	f.fis.add(fi)
	if fi.nh != nil {
		f.nhInfos.add(fi.nh.ID(), fi)
	} else {
		k := fi.makeKey()
		chainAdd(f.infos, k.hash(), fi)
	}
	f.infoCount++
	if fi.prefsrc.IsValid() {
		h := f.laddr[fi.prefsrc]
		fi.lnext = num(h)
		if h != nil {
			h.lprev = fi.idx
		}
		f.laddr[fi.prefsrc] = fi
	}
	if fi.nh != nil {
		fi.nh.AddFIBUser(fi)
		return
	}
	if fi.flags&(FlagDead|FlagLinkDown) != 0 {
		f.flagGen++
	}
	for i := range fi.nhs {
		nh := &fi.nhs[i]
		if nh.dev == nil {
			continue
		}
		if nh.flags&(FlagDead|FlagLinkDown) != 0 {
			f.flagGen++
		}
		nh.parent = fi
		c := f.devNH[nh.dev]
		if c == nil {
			c = &devChain{}
			f.devNH[nh.dev] = c
		}
		h := c.head
		if h == nil || h.parent != fi {
			c.infos++ // fi's first path on the device
		}
		nh.devNext = h
		if h != nil {
			h.devPrev = nh
		}
		nh.hashed = true
		c.head = nh
	}
}

// devChain is one device's chain of fib_info_devhash: its classic
// nexthops, newest first, a fib_info's paths on the device side by side
// (linkInfo pushes them one after the other).
//
// fib_sync_up walks the whole chain on every IPv4 address added to the
// device, so adding N addresses walks it N²/2 times in the kernel. netsim
// counts that walk (sim.FibDevhashVisit) but does it in Go only when it
// can change something: infos is the number of fib_infos a walk visits,
// and clean says that the last walk found nothing to revive and nothing
// was flagged since.
type devChain struct {
	head  *fibNH
	infos int64 // the distinct fib_infos on the chain
	// clean is the FIB's flagGen+1 when a walk found no fib_info on the
	// chain, nor any of its nexthops on the device, flagged dead or
	// link-down, and none has been flagged since; 0 when unknown.
	clean uint64
}

// releaseInfo is fib_release_info: drop one route's reference; the last
// one unlinks the fib_info.
func (f *FIB) releaseInfo(fi *fibInfo) {
	if fi == nil {
		return
	}
	fi.treeref--
	if fi.treeref > 0 {
		return
	}
	// Unhash.
	if fi.nh != nil {
		f.nhInfos.del(fi.nh.ID(), fi)
	} else {
		k := fi.makeKey()
		chainDel(&f.fis, f.infos, k.hash(), fi)
	}
	f.fis.remove(fi)
	f.infoCount--
	if fi.prefsrc.IsValid() {
		if fi.lprev != 0 {
			f.fis.at(fi.lprev).lnext = fi.lnext
		} else if fi.lnext != 0 {
			f.laddr[fi.prefsrc] = f.fis.at(fi.lnext)
		} else {
			delete(f.laddr, fi.prefsrc)
		}
		if fi.lnext != 0 {
			f.fis.at(fi.lnext).lprev = fi.lprev
		}
		fi.lprev, fi.lnext = 0, 0
	}
	if fi.nh != nil {
		fi.nh.RemoveFIBUser(fi)
	} else {
		for i := range fi.nhs {
			f.unhashNH(&fi.nhs[i])
		}
	}
}

func (f *FIB) unhashNH(nh *fibNH) {
	if !nh.hashed {
		return
	}
	c := f.devNH[nh.dev]
	if (nh.devPrev == nil || nh.devPrev.parent != nh.parent) && (nh.devNext == nil || nh.devNext.parent != nh.parent) {
		c.infos-- // the fib_info's last path on the device
	}
	if nh.devPrev != nil {
		nh.devPrev.devNext = nh.devNext
	} else if nh.devNext != nil {
		c.head = nh.devNext
	} else {
		delete(f.devNH, nh.dev)
	}
	if nh.devNext != nil {
		nh.devNext.devPrev = nh.devPrev
	}
	nh.devPrev, nh.devNext, nh.hashed = nil, nil, false
}

func einval(msg string) error { return errno.New(syscall.EINVAL, msg) }

// createInfo is fib_create_info: find or build the fib_info for a request,
// validating its nexthops. The caller owns one reference on success.
func (f *FIB) createInfo(t *sim.Task, cfg *config) (*fibInfo, error) {
	if cfg.typ > typeMax {
		return nil, einval("Invalid route type")
	}
	if typeProps[cfg.typ].scope > cfg.scope {
		return nil, einval("Invalid scope")
	}
	if cfg.flags&(FlagDead|FlagLinkDown) != 0 {
		return nil, einval("Invalid rtm_flags - can not contain DEAD or LINKDOWN")
	}
	if cfg.nhID != 0 {
		k := nhInfoKey{nhID: cfg.nhID, priority: cfg.priority, tbID: cfg.table,
			prefsrc: addr4(cfg.prefsrc), flags: cfg.flags &^ compareMask,
			protocol: cfg.protocol, scope: cfg.scope, typ: cfg.typ}
		// Without metrics any fib_info of the nexthop with this
		// configuration is taken, whatever metrics it has (fib_find_info_nh
		// does not compare them).
		if cfg.mx == nil {
			if fi := f.findInfoNH(k); fi != nil {
				fi.treeref++
				return fi, nil
			}
		}
		var nh *nexthop.Nexthop
		if f.nh != nil {
			nh = f.nh.Get(cfg.nhID)
		}
		if nh == nil {
			return nil, einval("Nexthop id does not exist")
		}
		mx, err := ConvertMetrics(cfg.mx)
		if err != nil {
			return nil, err
		}
		return f.createInfoNH(t, cfg, nh, k, mx)
	}
	mx, err := ConvertMetrics(cfg.mx)
	if err != nil {
		return nil, err
	}
	// Build the candidate in scratch space: most requests end up sharing
	// an existing fib_info (linkOrShare copies a new one to the heap).
	fi := &f.cand
	*fi = fibInfo{
		f: f, protocol: cfg.protocol, scope: cfg.scope, flags: cfg.flags, priority: cfg.priority,
		prefsrc: cfg.prefsrc, typ: cfg.typ, tbID: cfg.table, mx: mx,
	}
	if len(cfg.mp) > 0 {
		if err := fi.getNHs(cfg); err != nil {
			return nil, err
		}
	} else {
		f.candNH[0] = fibNH{oif: ifindex(cfg.oif), dev: cfg.oif, gw: cfg.gw, flags: cfg.flags, weight: 1}
		fi.nhs = f.candNH[:]
	}

	if reject, err := checkType(cfg); reject || err != nil {
		if err != nil {
			return nil, err
		}
		return f.linkOrShare(fi), nil
	}
	switch {
	case cfg.scope == ScopeHost:
		if len(fi.nhs) != 1 {
			return nil, einval("Route with host scope can not have multiple nexthops")
		}
		nh := &fi.nhs[0]
		if nh.gw.IsValid() {
			return nil, einval("Route with host scope can not have a gateway")
		}
		nh.scope = ScopeNowhere
		if nh.dev == nil || !nh.dev.Registered() {
			return nil, errno.New(syscall.ENODEV, "")
		}
	default:
		linkdown := 0
		for i := range fi.nhs {
			if err := f.checkNH(t, &fi.nhs[i], cfg.table, cfg.scope); err != nil {
				return nil, err
			}
			if fi.nhs[i].flags&FlagLinkDown != 0 {
				linkdown++
			}
		}
		if linkdown == len(fi.nhs) {
			fi.flags |= FlagLinkDown
		}
	}
	if fi.prefsrc.IsValid() && !f.validPrefsrc(t, cfg) {
		return nil, einval("Invalid prefsrc address")
	}
	return f.linkOrShare(fi), nil
}

// createInfoNH is the rest of fib_create_info for a route using nexthop
// object nh, which no fib_info has yet (fib_find_info_nh found none, or
// the request has metrics mx): the checks createInfo makes, in its order,
// then the fib_info with the same configuration and metrics
// (fib_find_info), or a new one built where it will stay, with no
// candidate to copy.
func (f *FIB) createInfoNH(t *sim.Task, cfg *config, nh *nexthop.Nexthop, k nhInfoKey, mx *Metrics) (*fibInfo, error) {
	if nh.Dead() {
		return nil, einval("Nexthop has been deleted")
	}
	if reject, err := checkType(cfg); err != nil {
		return nil, err
	} else if !reject {
		if err := nh.CheckScope(uint8(cfg.scope)); err != nil {
			return nil, err
		}
		if cfg.prefsrc.IsValid() && !f.validPrefsrc(t, cfg) {
			return nil, einval("Invalid prefsrc address")
		}
	}
	if cfg.mx != nil {
		for fi := f.nhInfos.head(k.nhID); fi != nil; fi = f.fis.get(fi.hashNext) {
			f.work.infos++
			if fi.nhKey() == k && metricsEqual(fi.mx, mx) {
				fi.treeref++
				return fi, nil
			}
		}
	}
	fi := f.fis.newInfo()
	fi.f, fi.nh, fi.mx = f, nh, mx
	fi.protocol, fi.scope, fi.flags, fi.typ = cfg.protocol, cfg.scope, cfg.flags, cfg.typ
	fi.priority, fi.prefsrc, fi.tbID = cfg.priority, cfg.prefsrc, cfg.table
	f.linkInfo(fi)
	return fi, nil
}

func ifindex(d *netdev.Device) netdev.IfIndex {
	if d == nil {
		return 0
	}
	return d.Index()
}

// checkType is fib_create_info's check of the route type and scope: a
// rejecting type (blackhole, unreachable, prohibit, throw) takes no gateway,
// device or paths, and reports reject; the others must be a type a route
// can have, of at most host scope.
func checkType(cfg *config) (reject bool, err error) {
	if typeProps[cfg.typ].err != 0 {
		if cfg.gw.IsValid() || cfg.oif != nil || len(cfg.mp) > 0 {
			return true, einval("Gateway, device and multipath can not be specified for this route type")
		}
		return true, nil
	}
	switch cfg.typ {
	case TypeUnicast, TypeLocal, TypeBroadcast, TypeAnycast, TypeMulticast:
	default:
		return false, einval("Invalid route type")
	}
	if cfg.scope > ScopeHost {
		return false, einval("Invalid scope")
	}
	return false, nil
}

// linkOrShare is the link_it tail of fib_create_info for classic nexthops:
// reuse an identical fib_info, or hash the new one. (A route with a
// nexthop object never gets here: createInfoNH builds its fib_info.)
func (f *FIB) linkOrShare(fi *fibInfo) *fibInfo {
	if ofi := f.findInfo(fi.makeKey(), fi); ofi != nil {
		ofi.treeref++
		return ofi
	}
	nfi := f.fis.newInfo()
	idx := nfi.idx
	*nfi = *fi
	nfi.idx = idx
	if len(fi.nhs) > 0 {
		nfi.nhs = slices.Clone(fi.nhs)
	}
	f.linkInfo(nfi)
	return nfi
}

// getNHs is fib_get_nhs: the paths of a multipath request.
func (fi *fibInfo) getNHs(cfg *config) error {
	fi.nhs = make([]fibNH, len(cfg.mp))
	for i, p := range cfg.mp {
		w := p.Weight
		if w == 0 {
			w = 1
		}
		if w < 1 || w > 256 {
			return einval("Invalid nexthop weight")
		}
		flags := cfg.flags&^0xff | p.Flags&0xff
		if p.Flags&(FlagDead|FlagLinkDown) != 0 {
			return einval("Invalid flags for nexthop - can not contain DEAD or LINKDOWN")
		}
		if p.OnLink {
			flags |= FlagOnLink
		}
		fi.nhs[i] = fibNH{oif: ifindex(p.Dev), dev: p.Dev, gw: p.Gateway, flags: flags, weight: w}
	}
	nh := &fi.nhs[0]
	if cfg.oif != nil && nh.oif != cfg.oif.Index() {
		return einval("Nexthop device index does not match RTA_OIF")
	}
	if cfg.gw.IsValid() && cfg.gw != nh.gw {
		return einval("Nexthop gateway does not match RTA_GATEWAY or RTA_VIA")
	}
	return nil
}

// checkNH is fib_check_nh for a classic nexthop: resolve its device and
// scope, or refuse it.
func (f *FIB) checkNH(t *sim.Task, nh *fibNH, table uint32, scope Scope) error {
	switch {
	case nh.gw.Is4():
		return f.checkNHv4GW(t, nh, table, scope)
	case nh.gw.IsValid():
		// An IPv6 gateway (RTA_VIA): netsim has no IPv6 FIB to resolve
		// it in, so it needs a device that is up, as fib6_nh_init would.
		if nh.dev == nil || !nh.dev.Registered() {
			return errno.New(syscall.ENODEV, "")
		}
		if !nh.dev.IsUp() {
			return errno.New(syscall.ENETDOWN, "Nexthop device is not up")
		}
		nh.scope = ScopeLink
		return nil
	}
	return checkNHNonGW(nh)
}

// checkNHNonGW is fib_check_nh_nongw: a device-only nexthop.
func checkNHNonGW(nh *fibNH) error {
	if nh.flags&(FlagPervasive|FlagOnLink) != 0 {
		return einval("Invalid flags for nexthop - PERVASIVE and ONLINK can not be set")
	}
	if nh.dev == nil || !nh.dev.Registered() {
		return errno.New(syscall.ENODEV, "")
	}
	if !nh.dev.IsUp() {
		return errno.New(syscall.ENETDOWN, "Device for nexthop is not up")
	}
	nh.scope = ScopeHost
	if !nh.dev.Carrier() {
		nh.flags |= FlagLinkDown
	}
	return nil
}

// checkNHv4GW is fib_check_nh_v4_gw: an IPv4 gateway must be on the link
// (onlink), or reachable through a route of narrower scope, typically the
// connected route of an address on the device.
func (f *FIB) checkNHv4GW(t *sim.Task, nh *fibNH, table uint32, scope Scope) error {
	if nh.flags&FlagOnLink != 0 {
		if scope >= ScopeLink {
			return einval("Nexthop has invalid scope")
		}
		dev := nh.dev
		if dev == nil || !dev.Registered() {
			return errno.New(syscall.ENODEV, "Nexthop device required for onlink")
		}
		if !dev.IsUp() {
			return errno.New(syscall.ENETDOWN, "Nexthop device is not up")
		}
		if f.addrType(t, nh.gw, TableLocal) != TypeUnicast {
			return einval("Nexthop has invalid gateway")
		}
		if !dev.Carrier() {
			nh.flags |= FlagLinkDown
		}
		nh.scope = ScopeLink
		return nil
	}
	fl := Flow{Dst: nh.gw, Scope: scope + 1, OIF: nh.oif, IIF: netdev.LoopbackIfIndex}
	if fl.Scope < ScopeLink {
		fl.Scope = ScopeLink
	}
	var res Result
	err := error(errAgain)
	if table != 0 && table != TableMain {
		if tb := f.Table(table); tb != nil {
			res, err = tb.lookup(t, fl)
		}
	}
	if err != nil {
		res, err = f.fibLookup(t, fl)
	}
	if err != nil {
		e := syscall.ENETUNREACH
		if ee, ok := err.(*errno.Error); ok {
			e = ee.Errno
		}
		return errno.New(e, "Nexthop has invalid gateway")
	}
	if res.Type != TypeUnicast && res.Type != TypeLocal {
		return einval("Nexthop has invalid gateway")
	}
	nh.scope = res.Scope
	nh.oif = ifindex(res.Dev)
	nh.dev = res.Dev
	if nh.dev == nil {
		return einval("No egress device for nexthop gateway")
	}
	if !nh.dev.Carrier() {
		nh.flags |= FlagLinkDown
	}
	if !nh.dev.IsUp() {
		return errno.New(syscall.ENETDOWN, "")
	}
	return nil
}

// CheckGateway validates a nexthop object's gateway and device the way
// nh_create_ipv4 does, with fib_check_nh in table main at scope universe;
// it has the type of nexthop.GatewayChecker. IPv6 gateways need only a
// device that is up (netsim has no IPv6 FIB). The caller holds RTNL.
//
// Kernel: nh_create_ipv4 (net/ipv4/nexthop.c), fib_check_nh
// (net/ipv4/fib_semantics.c).
func (f *FIB) CheckGateway(t *sim.Task, family int, gw netip.Addr, dev *netdev.Device, onlink bool) error {
	_, err := f.CheckGatewayScope(t, family, gw, dev, onlink)
	return err
}

// CheckGatewayScope is CheckGateway that also returns the scope the check
// gives the nexthop (nhc_scope): the scope of the route that reaches the
// gateway, so host for a local address; link for onlink and IPv6 gateways.
// It has the type of nexthop.GatewayScopeChecker.
func (f *FIB) CheckGatewayScope(t *sim.Task, family int, gw netip.Addr, dev *netdev.Device, onlink bool) (uint8, error) {
	nh := fibNH{dev: dev, oif: ifindex(dev), gw: gw, weight: 1, scope: ScopeLink}
	if onlink {
		nh.flags |= FlagOnLink
	}
	err := f.checkNH(t, &nh, TableMain, ScopeUniverse)
	f.charge(t)
	return uint8(nh.scope), err
}

// validPrefsrc is fib_valid_prefsrc: a preferred source must be a local
// address (in the route's table, then in local), unless it is the
// destination of a local route.
func (f *FIB) validPrefsrc(t *sim.Task, cfg *config) bool {
	if cfg.typ == TypeLocal && cfg.dst != 0 && addr4(cfg.prefsrc) == cfg.dst {
		return true
	}
	tb := cfg.table
	if tb == TableMain {
		tb = TableLocal
	}
	rc := f.addrType(t, cfg.prefsrc, tb)
	if rc != TypeLocal && tb != TableLocal {
		rc = f.addrType(t, cfg.prefsrc, TableLocal)
	}
	return rc == TypeLocal
}

// addrType is inet_addr_type_table (__inet_dev_addr_type without a
// device): the type of the route addr takes in table tbID.
func (f *FIB) addrType(t *sim.Task, addr netip.Addr, tbID uint32) Type {
	v := addr4(addr)
	if v == 0 || v == 0xffffffff {
		return TypeBroadcast
	}
	if v>>28 == 0xe {
		return TypeMulticast
	}
	tb := f.Table(tbID)
	if tb == nil {
		return TypeBroadcast
	}
	res, err := tb.lookup(t, Flow{Dst: addr})
	if err == nil {
		return res.Type
	}
	return TypeUnicast
}

// nhMatch is fib_nh_match: does a delete request's nexthop part match fi.
func nhMatch(cfg *config, fi *fibInfo) bool {
	if cfg.priority != 0 && cfg.priority != fi.priority {
		return false
	}
	if cfg.nhID != 0 {
		return fi.nh != nil && fi.nh.ID() == cfg.nhID
	}
	if fi.nh != nil {
		return cfg.oif == nil && !cfg.gw.IsValid() && len(cfg.mp) == 0
	}
	if cfg.oif != nil || cfg.gw.IsValid() {
		nh := &fi.nhs[0]
		if cfg.oif != nil && cfg.oif.Index() != nh.oif {
			return false
		}
		if cfg.gw.IsValid() && cfg.gw != nh.gw {
			return false
		}
		return true
	}
	if len(cfg.mp) == 0 {
		return true
	}
	for i := range fi.nhs {
		if i >= len(cfg.mp) {
			break
		}
		p, nh := cfg.mp[i], &fi.nhs[i]
		if p.Dev != nil && p.Dev.Index() != nh.oif {
			return false
		}
		if p.Gateway.IsValid() && p.Gateway != nh.gw {
			return false
		}
	}
	return true
}

// SyncDownDev marks the classic nexthops on dev dead (NETDEV_DOWN,
// NETDEV_UNREGISTER) or link-down (NETDEV_CHANGE), and whole fib_infos once
// all their paths are; host-scope nexthops (local routes) survive unless
// force. It returns the number of fib_infos that died, which is when the
// caller must flush. Routes that use nexthop objects are left to package
// nexthop. The caller holds RTNL.
//
// Kernel: fib_sync_down_dev (net/ipv4/fib_semantics.c).
func (f *FIB) SyncDownDev(t *sim.Task, dev *netdev.Device, ev netdev.Event, force bool) int {
	n := f.syncDownDev(dev, ev, force)
	f.charge(t)
	return n
}

// devInfos yields the fib_infos with a classic nexthop on dev, walking
// fib_info_devhash as fib_sync_down_dev and fib_sync_up do, each once
// (linkInfo hashes a fib_info's nexthops together, so its paths on dev sit
// side by side), counting each as examined.
func (f *FIB) devInfos(dev *netdev.Device) iter.Seq[*fibInfo] {
	return func(yield func(*fibInfo) bool) {
		c := f.devNH[dev]
		if c == nil {
			return
		}
		var prev *fibInfo
		for nh := c.head; nh != nil; nh = nh.devNext {
			fi := nh.parent
			if nh.dev != dev || fi == prev {
				continue
			}
			prev = fi
			f.work.infos++
			f.work.devhash++
			f.devWalked++
			if !yield(fi) {
				return
			}
		}
	}
}

func (f *FIB) syncDownDev(dev *netdev.Device, ev netdev.Event, force bool) int {
	scope := int(ScopeNowhere)
	if force {
		scope = -1
	}
	ret := 0
	f.flagGen++ // it may flag any fib_info on the chain
	for fi := range f.devInfos(dev) {
		dead := 0
		for i := range fi.nhs {
			x := &fi.nhs[i]
			if x.flags&FlagDead != 0 {
				dead++
			} else if x.dev == dev && int(x.scope) != scope {
				switch ev {
				case netdev.EventDown, netdev.EventUnregister:
					x.flags |= FlagDead | FlagLinkDown
				case netdev.EventChange:
					x.flags |= FlagLinkDown
				}
				dead++
			}
			if ev == netdev.EventUnregister && x.dev == dev {
				dead = len(fi.nhs)
				break
			}
		}
		if dead == len(fi.nhs) {
			switch ev {
			case netdev.EventDown, netdev.EventUnregister:
				fi.setFlags(fi.flags | FlagDead | FlagLinkDown)
			case netdev.EventChange:
				fi.setFlags(fi.flags | FlagLinkDown)
			}
			ret++
		}
	}
	return ret
}

// SyncUp revives the classic nexthops on dev that have any of flags
// (FlagDead after NETDEV_UP or an address, FlagLinkDown when carrier
// returns), and their fib_infos. It returns the number of fib_infos with a
// live path. The caller holds RTNL.
//
// Kernel: fib_sync_up (net/ipv4/fib_semantics.c).
func (f *FIB) SyncUp(t *sim.Task, dev *netdev.Device, flags NHFlags) int {
	n := f.syncUp(dev, flags)
	f.charge(t)
	return n
}

func (f *FIB) syncUp(dev *netdev.Device, flags NHFlags) int {
	if !dev.IsUp() {
		return 0
	}
	if flags&FlagDead != 0 && dev.Flags()&netdev.FlagLowerUp != 0 {
		flags |= FlagLinkDown
	}
	c := f.devNH[dev]
	if c == nil {
		return 0
	}
	if c.clean == f.flagGen+1 {
		// Nothing on the chain is flagged: the walk would revive nothing
		// and find every fib_info alive. It is counted, not done.
		f.work.infos += c.infos
		f.work.devhash += c.infos
		return int(c.infos)
	}
	const flagged = FlagDead | FlagLinkDown
	ret, dirty := 0, false
	for fi := range f.devInfos(dev) {
		alive := 0
		for i := range fi.nhs {
			x := &fi.nhs[i]
			if x.flags&flags == 0 {
				alive++
			} else if x.dev != nil && x.dev.IsUp() && x.dev == dev && dev.Registered() {
				alive++
				x.flags &^= flags
			}
			if x.dev == dev && x.flags&flagged != 0 {
				dirty = true
			}
		}
		if alive > 0 {
			fi.setFlags(fi.flags &^ flags)
			ret++
		}
		if fi.flags&flagged != 0 {
			dirty = true
		}
	}
	if !dirty {
		c.clean = f.flagGen + 1
	}
	return ret
}

// syncDownAddr is fib_sync_down_addr: mark dead the main-table fib_infos
// whose preferred source was local, an address that went away.
func (f *FIB) syncDownAddr(local netip.Addr) int {
	if !local.IsValid() || addr4(local) == 0 {
		return 0
	}
	ret := 0
	for fi := f.laddr[local]; fi != nil; fi = f.fis.get(fi.lnext) {
		f.work.infos++
		if fi.tbID != TableMain {
			continue
		}
		fi.setFlags(fi.flags | FlagDead)
		ret++
	}
	return ret
}
