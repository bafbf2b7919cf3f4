// Route semantics: the properties of each route type (fib_props), the
// fib_info shared between routes and its nexthops (struct fib_info, struct
// fib_nh), and building, sharing and matching one for a request
// (fib_create_info, fib_get_nhs, fib_valid_prefsrc, fib_nh_match). Modelled
// on net/ipv4/fib_semantics.c; the fib_info hash is in infohash.go, the
// nexthop checks in nhcheck.go, the device events in sync.go.

package fib

import (
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
		fi.f.fis.setDead(fi.idx, fl&FlagDead != 0)
	}
}

// RouteScope returns the routes' scope (nexthop.ScopedFIBUser).
func (fi *fibInfo) RouteScope() uint8 { return uint8(fi.scope) }

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
	// Build the candidate on the stack, its nexthop in scratch space: most
	// requests end up sharing an existing fib_info (linkOrShare copies a
	// new one to the heap).
	var cand fibInfo
	fi := &cand
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
	if ofi := f.findInfo(fi); ofi != nil {
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
