// route.go follows the request side of net/ipv6/route.c: a route request
// becomes a struct fib6_config (rtm_to_fib6_config, inet6_rtm_newroute),
// then a fib6_info (ip6_route_info_create, with fib6_nh_init in
// nhinit.go) that fib6_add links into its table; deletes match routes as
// ip6_route_del does. Multipath requests are sequences of single routes
// (ip6_route_multipath_add / _del).

package fib6

import (
	"encoding/binary"
	"net/netip"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Route metrics the kernel gives routes that name none.
const (
	prioUser     = 1024 // IP6_RT_PRIO_USER: `ip -6 route add` without metric
	prioAddrconf = 256  // IP6_RT_PRIO_ADDRCONF: prefix and multicast routes
)

// infinityLifeTime is INFINITY_LIFE_TIME seconds: RTA_EXPIRES's "forever".
const infinityLifeTime = 0xffffffff * time.Second

// config is struct fib6_config: a request after rtm_to_fib6_config.
type config struct {
	table    uint32
	metric   uint32
	dst, src key
	prefsrc  netip.Addr
	gw       netip.Addr
	dev      *netdev.Device // fc_ifindex
	flags    uint32         // RTF_*
	onlink   bool           // RTNH_F_ONLINK in fc_flags
	protocol rt.Protocol
	typ      rt.Type
	pref     rt.Pref
	expires  time.Duration // with rtfExpires
	mx       *fib.Metrics
	nhID     nexthop.ID
	mp       []fib.Path
	mode     rt.NLMFlags
	// nlh is the request header's NLM_F_* flags, which
	// ip6_route_multipath_add rewrites as it inserts the paths.
	nlh rt.NLMFlags

	ignoreDevDown bool // fc_ignore_dev_down (addrconf's local routes)
	deleteAllNH   bool // fc_delete_all_nh
	weight        int32
}

func einval(msg string) error { return errno.New(syscall.EINVAL, msg) }

// keyOf masks a to plen bits (ipv6_addr_prefix).
func keyOf(a netip.Addr, plen int) key {
	k := key{plen: uint8(plen)}
	if !a.IsValid() || plen <= 0 {
		return k
	}
	b := a.As16()
	h := maskedHalves(&b, min(plen, 128))
	binary.BigEndian.PutUint64(k.addr[:8], h[0])
	binary.BigEndian.PutUint64(k.addr[8:], h[1])
	return k
}

// requestKey converts a request's prefix; the zero Prefix is ::/0.
func requestKey(p netip.Prefix, what string) (key, error) {
	if p == (netip.Prefix{}) {
		return key{}, nil
	}
	if !p.IsValid() || p.Addr().Is4() {
		if what == "src" {
			return key{}, einval("Invalid source address length")
		}
		return key{}, einval("Invalid prefix length")
	}
	return keyOf(p.Addr(), p.Bits()), nil
}

// toConfig is rtm_to_fib6_config: the checks that need no table, and
// the fib6_config *cfg.
func (f *FIB) toConfig(r *Route, mode rt.NLMFlags, add bool, cfg *config) error {
	*cfg = config{
		table: r.Table, metric: r.Priority, protocol: r.Protocol, typ: r.Type,
		flags: rtfUp, onlink: r.OnLink, dev: r.Dev, nhID: r.NexthopID, mp: r.Multipath,
		prefsrc: r.PrefSrc, mode: mode, pref: r.Pref,
	}
	// A request whose paths RTA_MULTIPATH could not carry (the bound
	// the wire sets on every front end; see fib.CheckMultipathLen). More
	// siblings than that come only from appends, as on Linux.
	if err := fib.CheckMultipathLen(r.Multipath, rt.FamilyInet6); err != nil {
		return err
	}
	if cfg.table == 0 {
		cfg.table = rt.TableMain
	}
	switch r.Type {
	case rt.TypeUnreachable, rt.TypeBlackhole, rt.TypeProhibit, rt.TypeThrow:
		cfg.flags |= rtfReject
	case rt.TypeLocal:
		cfg.flags |= rtfLocal
	}
	if r.NexthopID != 0 && (r.Gateway.IsValid() || r.Dev != nil || len(r.Multipath) > 0) {
		return einval("Nexthop specification and nexthop id are mutually exclusive")
	}
	if r.Gateway.IsValid() {
		if r.Gateway.Is4() {
			// ip sends an IPv4 gateway of an IPv6 route as RTA_VIA.
			return einval("IPv6 does not support RTA_VIA attribute")
		}
		cfg.gw = r.Gateway
		cfg.flags |= rtfGateway
	}
	// rtm_to_fib6_multipath_config: every path of a new multipath route
	// needs a gateway (its own RTA_GATEWAY, or the request's); an IPv4
	// gateway, sent as RTA_VIA, is none.
	if add {
		for _, p := range r.Multipath {
			if cfg.flags&rtfGateway == 0 && (!p.Gateway.IsValid() || p.Gateway.Is4()) {
				return einval("Device only routes can not be added for IPv6 using the multipath API.")
			}
		}
	}
	var err error
	if cfg.dst, err = requestKey(r.Dst, "dst"); err != nil {
		return err
	}
	if r.Src.IsValid() || r.Src != (netip.Prefix{}) {
		if cfg.src, err = requestKey(r.Src, "src"); err != nil {
			return err
		}
	}
	if cfg.prefsrc.IsValid() && cfg.prefsrc.Is4() {
		return einval("Invalid source address")
	}
	if !r.Metrics.IsZero() {
		m := r.Metrics
		cfg.mx = &m
	}
	if r.Pref != rt.PrefLow && r.Pref != rt.PrefHigh {
		cfg.pref = rt.PrefMedium
	}
	// addrconf_timeout_fixup: 0xffffffff seconds (INFINITY_LIFE_TIME) is
	// no lifetime at all.
	if r.Expires > 0 && r.Expires < infinityLifeTime {
		cfg.flags |= rtfExpires
		cfg.expires = r.Expires
	}
	if add && cfg.metric == 0 {
		cfg.metric = prioUser
	}
	return nil
}

// checkNexthopObj is fib6_check_nexthop: which nexthop objects an IPv6
// route may use.
//
// Kernel: fib6_check_nexthop (net/ipv4/nexthop.c).
//
// The kernel's check_src_addr ("IPv6 routes using source address can not
// use nexthop objects") does not fire for a request: Linux 6.18 refuses a
// source prefix first, with "Nexthops can not be used with source routing"
// (configValidate).
func checkNexthopObj(n *nexthop.Nexthop) error {
	if n.IsGroup() && n.HasV4() || !n.IsGroup() && n.Family() == rt.FamilyInet {
		return einval("IPv6 routes can not use an IPv4 nexthop")
	}
	if n.FDB() {
		return einval("Route cannot point to a fdb nexthop")
	}
	return nil
}

// firstNH returns the nexthop object whose fib6_nh a route on n uses for
// its device (nexthop_fib6_nh): n itself, or a group's first member.
func firstNH(n *nexthop.Nexthop) *nexthop.Nexthop {
	if n.IsGroup() {
		return n.Member(0)
	}
	return n
}

// infoCreate is ip6_route_info_create: a new fib6_info for cfg, with one
// reference the caller owns, or the kernel's error. The route's table is
// created if needed (fib6_new_table), even when the request then fails, as
// in the kernel.
//
// Kernel: ip6_route_info_create (net/ipv6/route.c).
func (f *FIB) infoCreate(t *sim.Task, cfg *config) (*Info, error) {
	if cfg.typ > rt.TypeMax {
		return nil, einval("Invalid route type")
	}
	var nho *nexthop.Nexthop
	if cfg.nhID != 0 {
		if f.nh != nil {
			nho = f.nh.Get(cfg.nhID)
		}
		if nho == nil {
			return nil, einval("Nexthop id does not exist")
		}
		if err := checkNexthopObj(nho); err != nil {
			return nil, err
		}
	}
	tb := f.newTableCharged(t, cfg.table)
	mx, err := fib.ConvertMetrics(cfg.mx)
	if err != nil {
		return nil, err
	}
	r := newInfo()
	r.metrics = mx
	if cfg.flags&rtfExpires != 0 {
		r.expires = t.Now().Add(cfg.expires)
	}
	r.protocol = cfg.protocol
	if r.protocol == rt.ProtoUnspec {
		r.protocol = rt.ProtoBoot
	}
	r.table = tb
	r.metric = cfg.metric
	r.typ = cfg.typ
	if r.typ == rt.TypeUnspec {
		r.typ = rt.TypeUnicast
	}
	r.flags = cfg.flags &^ rtfGateway
	r.pref = cfg.pref
	r.dst = cfg.dst
	r.src = cfg.src
	var pdev *netdev.Device
	if nho != nil {
		if r.src.plen != 0 {
			f.discard(t, r)
			return nil, einval("Nexthops can not be used with source routing")
		}
		if nho.Dead() {
			f.discard(t, r)
			return nil, einval("Nexthop has been deleted")
		}
		r.nhObj = nho
		if m := firstNH(nho); m != nil {
			pdev = m.Dev()
			if m.Blackhole() {
				pdev = f.rs.lo
			}
		}
	} else {
		if err := f.nhInit(t, &r.fnh, cfg); err != nil {
			f.release(t, r)
			return nil, err
		}
		pdev = r.fnh.dev
		if isReject(cfg.flags, r.fnh.dev, cfg.dst.addr) {
			// The new flags have no RTF_PREF bits: the route's
			// preference is medium.
			r.flags = rtfReject | rtfNonexthop
			r.pref = rt.PrefMedium
		}
	}
	if cfg.prefsrc.IsValid() && !cfg.prefsrc.IsUnspecified() {
		if !chkAddr(f.devTable(pdev), cfg.prefsrc, pdev, false, true) {
			f.release(t, r)
			return nil, einval("Invalid source address")
		}
		r.prefsrc = key{addr: cfg.prefsrc.As16(), plen: 128}
	}
	return r, nil
}

// discard frees a fib6_info that never got a nexthop (ip6_route_info_create's
// out_free: kfree without fib6_info_release).
func (f *FIB) discard(t *sim.Task, r *Info) { f.release(t, r) }

// newTableCharged is fib6_new_table, charging the creation of a table.
func (f *FIB) newTableCharged(t *sim.Task, id uint32) *Table {
	if tb := f.getTable(id); tb != nil {
		return tb
	}
	t.Charge(sim.Fib6NewTable, 1)
	return f.newTable(id)
}

// insert is __ip6_ins_rt: fib6_add under the table lock, then the
// garbage collector's timer fib6_add starts (fib6_start_gc); the nexthop
// object's user list is joined through the tree's linked hook.
func (f *FIB) insert(t *sim.Task, r *Info, mode rt.NLMFlags) error {
	if r.nhObj != nil && r.nhObj.Dead() {
		return einval("Nexthop has been deleted")
	}
	if err := r.table.add(t, r, mode); err != nil {
		return err
	}
	t.Charge(sim.Fib6RouteInsert, 1)
	if r.flags&rtfExpires != 0 {
		f.startGC(t)
	}
	return nil
}

// routeAdd is ip6_route_add.
func (f *FIB) routeAdd(t *sim.Task, cfg *config) error {
	r, err := f.infoCreate(t, cfg)
	if err != nil {
		return err
	}
	err = f.insert(t, r, cfg.mode)
	f.release(t, r)
	return err
}

// pathConfig is one path of a multipath request as its own fib6_config.
func pathConfig(cfg *config, p fib.Path) *config {
	r := pathDevGW(cfg, p)
	r.onlink = cfg.onlink || p.OnLink
	w := p.Weight
	if w <= 0 {
		w = 1
	}
	r.weight = int32(w)
	return &r
}

// pathDevGW is cfg with the device and gateway of path p and no paths.
// ip puts an IPv4 gateway of an IPv6 path in RTA_VIA, which
// ip6_route_multipath_add and ip6_route_multipath_del do not look for: the
// path has no gateway.
func pathDevGW(cfg *config, p fib.Path) config {
	r := *cfg
	r.mp = nil
	if p.Dev != nil {
		r.dev = p.Dev
	}
	if p.Gateway.IsValid() && !p.Gateway.Is4() {
		r.gw = p.Gateway
		r.flags |= rtfGateway
	}
	return r
}

// multipathAdd is ip6_route_multipath_add: every path becomes a route,
// all are created first (any error leaves the FIB unchanged), then
// inserted one by one as single routes: the first with the request's
// flags, the others appended to it; an insertion error deletes those
// already inserted.
//
// Kernel: ip6_route_multipath_add (net/ipv6/route.c).
func (f *FIB) multipathAdd(t *sim.Task, cfg *config) error {
	type pathRoute struct {
		r   *Info
		cfg *config
	}
	var list []pathRoute
	cleanup := func() {
		for _, p := range list {
			if p.r != nil {
				f.release(t, p.r)
			}
		}
	}
	for _, p := range cfg.mp {
		pc := pathConfig(cfg, p)
		r, err := f.infoCreate(t, pc)
		if err != nil {
			cleanup()
			return err
		}
		if !r.qualifyForECMP() {
			f.release(t, r)
			cleanup()
			return einval("Device only routes can not be added for IPv6 using the multipath API.")
		}
		r.fnh.weight = pc.weight
		for _, q := range list {
			if duplicateNexthop(q.r, r) {
				f.release(t, r)
				cleanup()
				return errno.New(syscall.EEXIST, "")
			}
		}
		list = append(list, pathRoute{r, pc})
	}
	if len(list) == 0 {
		return einval("Invalid nexthop configuration - no valid nexthops")
	}
	replace := cfg.mode&rt.NLMReplace != 0
	mode := cfg.mode
	// One message for the whole route, of its first path, once all are in.
	nlflags := rt.NLMCreate
	if replace {
		nlflags = rt.NLMReplace
	}
	nlflags |= cfg.mode & rt.NLMAppend
	var first *Info
	f.ns.skip++
	defer func() { f.ns.skip-- }()
	for i := range list {
		if i == 0 {
			first = list[i].r
			first.hold()
			defer f.release(t, first)
		}
		err := f.insert(t, list[i].r, mode)
		f.release(t, list[i].r)
		list[i].r = nil
		if err != nil {
			if replace && i > 0 {
				err = errno.New(err.(*errno.Error).Errno,
					"ipv6: multipath route replace failed (check consistency of installed routes)")
			}
			for _, p := range list[:i] {
				dc := *p.cfg
				dc.deleteAllNH = false
				_ = f.routeDel(t, &dc)
			}
			// The paths after the failed one were never inserted:
			// their references (and their devices') go too.
			cleanup()
			return err
		}
		// The kernel rewrites the request's own header: the ack echoes
		// these flags.
		mode = mode&^(rt.NLMExcl|rt.NLMReplace) | rt.NLMCreate
		cfg.nlh = mode
	}
	if !f.wanted() {
		return nil
	}
	// Paths appended to a multipath route are announced with the whole
	// route, from its first sibling on.
	notif := first
	if nlflags&rt.NLMAppend != 0 && first.nsiblings > 0 {
		if s := multipathFirstSibling(first); s != nil {
			notif = s
		}
	}
	f.ns.skip--
	f.routeMsg(t, notif, false, nlflags)
	f.ns.skip++
	return nil
}

// routeDel is ip6_route_del: delete the first route of the exact node
// that matches cfg (metric, protocol, nexthop id, device, gateway; zero
// fields match anything); without a gateway, a multipath route goes whole.
//
// Kernel: ip6_route_del (net/ipv6/route.c).
func (f *FIB) routeDel(t *sim.Task, cfg *config) error {
	defer t.Frame("ip6_route_del")()
	tb := f.getTable(cfg.table)
	if tb == nil {
		return errno.New(syscall.ESRCH, "FIB table does not exist")
	}
	fn := tb.locate(cfg.dst, cfg.src, true)
	if fn == nil {
		return errno.New(syscall.ESRCH, "")
	}
	for r := fn.leaf; r != nil; r = r.next {
		if r.nhObj != nil && cfg.nhID != 0 && r.nhObj.ID() != cfg.nhID {
			continue
		}
		if cfg.metric != 0 && cfg.metric != r.metric {
			continue
		}
		if cfg.protocol != 0 && cfg.protocol != r.protocol {
			continue
		}
		if r.nhObj != nil {
			return f.delRT(t, r)
		}
		if cfg.nhID != 0 {
			continue
		}
		if cfg.dev != nil && r.fnh.dev != cfg.dev {
			continue
		}
		if cfg.flags&rtfGateway != 0 && cfg.gw.As16() != r.fnh.gw {
			continue
		}
		if cfg.flags&rtfGateway != 0 {
			return f.delRT(t, r)
		}
		return f.delRTSiblings(t, r, cfg.deleteAllNH)
	}
	return errno.New(syscall.ESRCH, "")
}

// delRT is ip6_del_rt: the caller's hold (fib6_info_hold_safe), fib6_del
// under the table lock, the release.
//
// Kernel: __ip6_del_rt (net/ipv6/route.c).
func (f *FIB) delRT(t *sim.Task, r *Info) error {
	defer t.Frame("__ip6_del_rt")()
	if r == f.nullEntry {
		return errno.New(syscall.ENOENT, "")
	}
	r.hold()
	err := f.del(t, r)
	f.release(t, r)
	return err
}

// delRTSiblings is __ip6_del_rt_siblings: a route and, when asked, all
// its multipath siblings.
func (f *FIB) delRTSiblings(t *sim.Task, r *Info, all bool) error {
	if r == f.nullEntry {
		return errno.New(syscall.ENOENT, "")
	}
	r.hold()
	defer f.release(t, r)
	if r.nsiblings > 0 && all {
		// One message for the whole route, built before it goes.
		var msg *Route
		if f.ns.skip == 0 && f.wanted() {
			m := f.fill(t.Now(), r)
			msg = &m
		}
		f.ns.skip++
		defer func() {
			f.ns.skip--
			if msg != nil {
				f.ns.announce.RouteMsg(t, *msg, true, 0, f.ns.req)
			}
		}()
		var sibs []*Info
		for s := r.sibNext; s != r; s = s.sibNext {
			sibs = append(sibs, s)
		}
		for _, s := range sibs {
			if err := f.del(t, s); err != nil {
				msg = nil
				return err
			}
		}
	}
	return f.del(t, r)
}

// multipathDel is ip6_route_multipath_del: each path deleted as its own
// route; the last error is returned.
func (f *FIB) multipathDel(t *sim.Task, cfg *config) error {
	var last error
	for _, p := range cfg.mp {
		pc := pathDevGW(cfg, p)
		pc.deleteAllNH = false
		if err := f.routeDel(t, &pc); err != nil {
			last = err
		}
	}
	return last
}

// configValidate is fib6_config_validate, which ip6_route_add and
// ip6_route_multipath_add run before anything else: before the nexthop
// object is looked up, a nexthop id with a source prefix is refused.
//
// Kernel: fib6_config_validate (net/ipv6/route.c).
func configValidate(cfg *config) error {
	if cfg.typ > rt.TypeMax {
		return einval("Invalid route type")
	}
	if cfg.nhID != 0 && cfg.src.plen != 0 {
		return einval("Nexthops can not be used with source routing")
	}
	return nil
}

// add is inet6_rtm_newroute. It returns the request header's NLM_F_*
// flags as the request leaves them (see AddRequest).
func (f *FIB) add(t *sim.Task, r *Route, mode rt.NLMFlags) (rt.NLMFlags, error) {
	f.runTimers(t)
	defer f.request()()
	var cfg config
	if err := f.toConfig(r, mode, true, &cfg); err != nil {
		return mode, err
	}
	cfg.nlh = mode
	if err := configValidate(&cfg); err != nil {
		return mode, err
	}
	if len(cfg.mp) > 0 {
		err := f.multipathAdd(t, &cfg)
		return cfg.nlh, err
	}
	return mode, f.routeAdd(t, &cfg)
}

// delRequest is inet6_rtm_delroute.
func (f *FIB) delRequest(t *sim.Task, r Route) error {
	f.runTimers(t)
	defer f.request()()
	var cfg config
	if err := f.toConfig(&r, 0, false, &cfg); err != nil {
		return err
	}
	if cfg.nhID != 0 && (f.nh == nil || f.nh.Get(cfg.nhID) == nil) {
		return einval("Nexthop id does not exist")
	}
	var err error
	if len(cfg.mp) > 0 {
		err = f.multipathDel(t, &cfg)
	} else {
		cfg.deleteAllNH = true
		err = f.routeDel(t, &cfg)
	}
	if err == nil {
		t.Charge(sim.Fib6RouteDelete, 1)
	}
	return err
}
