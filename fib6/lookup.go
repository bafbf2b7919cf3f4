// lookup.go follows route lookups in net/ipv6/route.c: fib6_table_lookup
// walks down to the longest matching node and picks a route with
// rt6_select (find_rr_leaf, find_match, rt6_score_route), backtracking up
// the tree (fib6_backtrack) while a node has no usable route;
// fib6_select_path then spreads flows over a multipath route's siblings
// by hash-threshold (rt6_multipath_hash, policy 0); fib6_rule_lookup
// without custom rules tries table local, then main
// (net/ipv6/fib6_rules.c).
//
// Neighbours. netsim has no neighbour table. The kernel's router
// reachability check (rt6_check_neigh) finds no neighbour entry for any
// gateway, and with CONFIG_IPV6_ROUTER_PREF (set in the distributions'
// and the reference machine's kernels) a gateway without an entry counts
// as reachable (RT6_NUD_SUCCEED): so every live route scores by device
// and router preference alone, RT6_NUD_FAIL_DO_RR never happens and the
// round-robin pointer (fn->rr_ptr) never moves.

package fib6

import (
	"encoding/binary"
	"net/netip"
	"syscall"

	"github.com/dchest/siphash"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Lookup flags (RT6_LOOKUP_F_*).
const (
	lookupIface           = 0x00000001 // RT6_LOOKUP_F_IFACE
	lookupReachable       = 0x00000002 // RT6_LOOKUP_F_REACHABLE
	lookupHasSaddr        = 0x00000004 // RT6_LOOKUP_F_HAS_SADDR
	lookupIgnoreLinkstate = 0x00000040 // RT6_LOOKUP_F_IGNORE_LINKSTATE
)

// rt6_score_route's failures (enum rt6_nud_state).
const nudFailHard = -3

// flow6 is struct flowi6 as a lookup reads it.
type flow6 struct {
	daddr, saddr [16]byte
	oif, iif     netdev.IfIndex
	mark         uint32
	proto        uint8
	flowlabel    uint32
	mpHash       uint32
}

// result is struct fib6_result: the route found and its chosen path.
type result struct {
	f6i    *Info
	n      *nh              // the route's own fib6_nh, nil on a nexthop object
	member *nexthop.Nexthop // the nexthop object's path, nil for fib6_nh
	dev    *netdev.Device
	gw     [16]byte
	hasGW  bool
	flags  uint32 // fib6_flags
	typ    rt.Type
}

// setNH points res at the route's own nexthop.
func (res *result) setNH(n *nh) {
	res.n, res.member = n, nil
	res.dev, res.gw, res.hasGW = n.dev, n.gw, n.hasGW
}

// setMember points res at a nexthop object's (single) nexthop.
func (f *FIB) setMember(res *result, m *nexthop.Nexthop) {
	res.n, res.member = nil, m
	res.dev, res.hasGW, res.gw = nil, false, [16]byte{}
	if m == nil {
		return
	}
	res.dev = m.Dev()
	if m.Blackhole() {
		res.dev = f.rs.lo
	}
	if g := m.Gateway(); g.IsValid() {
		res.gw, res.hasGW = g.As16(), true
	}
}

// decodePref is IPV6_DECODE_PREF: low 1, medium 2, high 3, invalid 0.
func decodePref(p rt.Pref) int { return int(p^2) & 3 }

// expired is fib6_check_expired.
func expired(r *Info, now sim.Time) bool {
	return r.flags&rtfExpires != 0 && now > r.expires
}

// scoreRoute is rt6_score_route.
func scoreRoute(dev *netdev.Device, r *Info, oif netdev.IfIndex, strict int) int {
	m := 0
	if oif == 0 || dev != nil && dev.Index() == oif {
		m = 2
	}
	if m == 0 && strict&lookupIface != 0 {
		return nudFailHard
	}
	m |= decodePref(r.pref) << 2
	// RT6_LOOKUP_F_REACHABLE: rt6_check_neigh finds no neighbour, which
	// counts as reachable (see the file comment).
	return m
}

// findMatch is find_match for one path (dead, flags and device of a
// fib6_nh or of a nexthop object's member).
func findMatch(dev *netdev.Device, flags rt.NHFlags, r *Info, oif netdev.IfIndex, strict int, mpri *int) bool {
	if flags&rt.FlagDead != 0 {
		return false
	}
	// ip6_ignore_linkdown: ignore_routes_with_linkdown is 0 (not modelled).
	m := scoreRoute(dev, r, oif, strict)
	if m == nudFailHard {
		return false
	}
	if m > *mpri {
		*mpri = m
		return true
	}
	return false
}

// nhPaths returns the single nexthops of a nexthop object (nexthop_for_each_fib6_nh).
func nhPaths(n *nexthop.Nexthop) []*nexthop.Nexthop {
	if !n.IsGroup() {
		return []*nexthop.Nexthop{n}
	}
	out := make([]*nexthop.Nexthop, 0, n.NumMembers())
	for i := range n.NumMembers() {
		out = append(out, n.Member(i))
	}
	return out
}

// findRRLeafRange is __find_rr_leaf.
func (f *FIB) findRRLeafRange(now sim.Time, start, nomatch *Info, metric uint32, res *result, cont **Info, oif netdev.IfIndex, strict int, mpri *int) {
	for r := start; r != nil && r != nomatch; r = r.next {
		if cont != nil && r.metric != metric {
			*cont = r
			return
		}
		if expired(r, now) {
			continue
		}
		if r.nhObj != nil {
			if r.nhObj.IsBlackhole() {
				res.f6i, res.flags, res.typ = r, rtfReject, rt.TypeBlackhole
				f.setMember(res, firstNH(r.nhObj))
				return
			}
			for _, m := range nhPaths(r.nhObj) {
				dev := m.Dev()
				if findMatch(dev, 0, r, oif, strict, mpri) {
					res.f6i, res.flags, res.typ = r, r.flags, r.typ
					f.setMember(res, m)
					break
				}
			}
			continue
		}
		if findMatch(r.fnh.dev, r.fnh.flags, r, oif, strict, mpri) {
			res.f6i, res.flags, res.typ = r, r.flags, r.typ
			res.setNH(&r.fnh)
		}
	}
}

// findRRLeaf is find_rr_leaf: the best route of rr_head's metric, from
// rr_head round to it, else the best of the higher metrics.
func (f *FIB) findRRLeaf(now sim.Time, leaf, rrHead *Info, oif netdev.IfIndex, strict int, res *result) {
	metric := rrHead.metric
	var cont *Info
	mpri := -1
	f.findRRLeafRange(now, rrHead, nil, metric, res, &cont, oif, strict, &mpri)
	f.findRRLeafRange(now, leaf, rrHead, metric, res, &cont, oif, strict, &mpri)
	if res.f6i != nil || cont == nil {
		return
	}
	f.findRRLeafRange(now, cont, nil, metric, res, nil, oif, strict, &mpri)
}

// nullResult is a result pointing at the null entry.
func (f *FIB) nullResult() result {
	res := result{f6i: f.nullEntry, flags: f.nullEntry.flags, typ: f.nullEntry.typ}
	res.setNH(&f.nullEntry.fnh)
	return res
}

// rt6Select is rt6_select.
func (f *FIB) rt6Select(now sim.Time, fn *node, oif netdev.IfIndex, strict int) result {
	leaf := fn.leaf
	if leaf == nil || leaf == f.nullEntry {
		return f.nullResult()
	}
	// fn->rr_ptr is always NULL in netsim (see node): the walk starts at
	// the leaf.
	rt0 := leaf
	keyPlen := rt0.dst.plen
	if rt0.src.plen != 0 {
		keyPlen = rt0.src.plen
	}
	if fn.bit != uint16(keyPlen) {
		return f.nullResult()
	}
	var res result
	f.findRRLeaf(now, leaf, rt0, oif, strict, &res)
	if res.f6i == nil {
		return f.nullResult()
	}
	return res
}

// tableLookup is fib6_table_lookup.
func (f *FIB) tableLookup(t *sim.Task, tb *Table, oif netdev.IfIndex, fl *flow6, strict int) result {
	now := t.Now()
	fn := tb.nodeLookup(fl.daddr, fl.saddr)
	saved := fn
	for {
		res := f.rt6Select(now, fn, oif, strict)
		if res.f6i != f.nullEntry {
			return res
		}
		if fn = f.backtrack(fn, fl.saddr); fn != nil {
			continue
		}
		if strict&lookupReachable != 0 {
			strict &^= lookupReachable
			fn = saved
			continue
		}
		return res
	}
}

// selectPath is fib6_select_path: a multipath route's sibling (or a
// nexthop group's member) for the flow's hash.
func (f *FIB) selectPath(res *result, fl *flow6, oif netdev.IfIndex, haveOifMatch bool, strict int) {
	match := res.f6i
	if match.nhObj == nil && (match.nsiblings == 0 || haveOifMatch) {
		res.f6i = match
		res.setNH(&match.fnh)
		return
	}
	if match.nhObj != nil && haveOifMatch && (res.member != nil || res.n != nil) {
		return
	}
	if fl.mpHash == 0 && (match.nhObj == nil || match.nhObj.IsGroup()) {
		fl.mpHash = f.multipathHash(fl)
	}
	if match.nhObj != nil {
		if match.nhObj.IsGroup() {
			_, m := match.nhObj.SelectPath(fl.mpHash)
			f.setMember(res, m)
		} else {
			f.setMember(res, match.nhObj)
		}
		return
	}
	if int64(fl.mpHash) > int64(match.fnh.upperBound) {
		for s := match.sibNext; s != match; s = s.sibNext {
			if int64(fl.mpHash) > int64(s.fnh.upperBound) {
				continue
			}
			if scoreRoute(s.fnh.dev, s, oif, strict) < 0 {
				break
			}
			match = s
			break
		}
	}
	res.f6i = match
	res.setNH(&match.fnh)
}

// MultipathHash is the multipath hash of an IPv6 flow under the default
// policy (net.ipv6.fib_multipath_hash_policy = 0: addresses, flow label
// and next header), keyed with seed: a value in [0, 2³¹).
//
// The kernel zeroes a struct flow_keys, sets the IPv6 addresses (offsets
// 36 and 52 from its basic key), the flow label (offset 4, network byte
// order) and the protocol (offset 2), orders the addresses so that both
// directions hash alike (__flow_hash_consistentify: the smaller by memcmp
// first), and runs SipHash-2-4 over the 72 bytes from the basic key to the
// end of the addresses rounded to 8 bytes, with the boot's random key
// (netsim: the seed, twice in each half); a zero hash becomes 1 and the
// result is shifted right once.
//
// Kernel: rt6_multipath_hash (net/ipv6/route.c), flow_hash_from_keys
// (net/core/flow_dissector.c).
func MultipathHash(seed uint32, src, dst netip.Addr, flowLabel uint32, proto uint8) uint32 {
	var s, d [16]byte
	if src.Is6() {
		s = src.As16()
	}
	if dst.Is6() {
		d = dst.As16()
	}
	return mpHash(seed, s, d, flowLabel, proto)
}

func mpHash(seed uint32, s, d [16]byte, flowLabel uint32, proto uint8) uint32 {
	for i := range 16 {
		if d[i] != s[i] {
			if d[i] < s[i] {
				s, d = d, s
			}
			break
		}
	}
	var keys [72]byte
	keys[2] = proto
	binary.BigEndian.PutUint32(keys[4:], flowLabel&0x000fffff)
	copy(keys[36:], s[:])
	copy(keys[52:], d[:])
	k := uint64(seed)<<32 | uint64(seed)
	h := uint32(siphash.Hash(k, k, keys[:]))
	if h == 0 {
		h = 1
	}
	return h >> 1
}

func (f *FIB) multipathHash(fl *flow6) uint32 {
	return mpHash(f.rs.mpSeed, fl.saddr, fl.daddr, fl.flowlabel, fl.proto)
}

// SetMultipathSeed sets the key of the IPv6 multipath hash: the
// namespace's net.ipv4.fib_multipath_hash_seed, or the random seed used
// while none is set.
func (f *FIB) SetMultipathSeed(seed uint32) { f.rs.mpSeed = seed }

// typeError is ip6_rt_type_to_error (fib6_prop): the error of a reject
// route's type.
func typeError(ty rt.Type) syscall.Errno {
	switch ty {
	case rt.TypeBlackhole, rt.TypeNAT, rt.TypeXResolve:
		return syscall.EINVAL
	case rt.TypeUnreachable:
		return syscall.EHOSTUNREACH
	case rt.TypeProhibit:
		return syscall.EACCES
	case rt.TypeThrow:
		return syscall.EAGAIN
	}
	return 0
}

// toFlow6 converts a Flow.
func toFlow6(fl Flow) flow6 {
	f6 := flow6{oif: fl.OIF, iif: fl.IIF, mark: fl.Mark, proto: fl.Proto, flowlabel: fl.FlowLabel}
	if fl.Dst.Is6() {
		f6.daddr = fl.Dst.As16()
	}
	if fl.Src.Is6() {
		f6.saddr = fl.Src.As16()
	}
	return f6
}

// polRoute is ip6_pol_route for a route get: the output path
// (ip6_route_output_flags) without iif, the input path
// (ip6_route_input_lookup, the lookup's interface being iif) with one. It
// returns the result and the dst's error (0, or the reject route's; the
// null entry's ENETUNREACH is reported as res.f6i == f.nullEntry).
func (f *FIB) polRoute(t *sim.Task, tb *Table, fl *flow6) (result, syscall.Errno) {
	flags := 0
	var oif netdev.IfIndex
	if fl.iif != 0 {
		oif = fl.iif
		if needStrict(fl.daddr) {
			flags |= lookupIface
		}
	} else {
		oif = fl.oif
		anySrc := fl.saddr == [16]byte{}
		if needStrict(fl.daddr) || fl.oif != 0 && anySrc {
			flags |= lookupIface
		}
	}
	strict := flags & (lookupIface | lookupIgnoreLinkstate)
	// devconf_all forwarding 0 adds RT6_LOOKUP_F_REACHABLE, which changes
	// nothing without neighbour entries (see the file comment).
	strict |= lookupReachable
	res := f.tableLookup(t, tb, oif, fl, strict)
	if res.f6i == f.nullEntry {
		return res, syscall.ENETUNREACH
	}
	f.selectPath(&res, fl, oif, false, strict)
	if res.flags&rtfReject != 0 {
		return res, typeError(res.typ)
	}
	return res, 0
}

// Lookup resolves fl as `ip -6 route get` does: through the policy rules
// when a RuleLookup is installed, else (the kernel without custom rules)
// table local, then main. A reject route gives its type's error
// (unreachable EHOSTUNREACH, prohibit EACCES, blackhole EINVAL); no route,
// or a throw, gives ENETUNREACH.
//
// Kernel: fib6_rule_lookup (net/ipv6/fib6_rules.c), ip6_pol_route,
// inet6_rtm_getroute (net/ipv6/route.c).
func (f *FIB) lookup(t *sim.Task, fl Flow) (Result, error) {
	f.runTimers(t)
	if f.rs.rules != nil {
		return f.rs.rules(t, fl)
	}
	for _, tb := range []*Table{f.local, f.main} {
		res, err := f.TableLookup(t, tb.id, fl)
		if errno.Of(err) == syscall.EAGAIN {
			continue
		}
		return res, err
	}
	return Result{}, errno.New(syscall.ENETUNREACH, "")
}

// tableLookupResult is the table step of fib6_rule_action (and of the
// default lookup): EAGAIN for a missing table, the null entry or a throw
// route; a reject route's error otherwise.
func (f *FIB) tableLookupResult(t *sim.Task, id uint32, fl Flow) (Result, error) {
	tb := f.getTable(id)
	if tb == nil {
		return Result{}, errno.New(syscall.EAGAIN, "")
	}
	f6 := toFlow6(fl)
	res, e := f.polRoute(t, tb, &f6)
	if res.f6i == f.nullEntry {
		return Result{}, errno.New(syscall.EAGAIN, "")
	}
	out := Result{Route: f.fill(t.Now(), res.f6i), Table: tb.id, Dev: res.dev}
	if res.hasGW {
		out.Gateway = netip.AddrFrom16(res.gw)
	}
	if res.flags&(rtfLocal|rtfAnycast) != 0 && res.dev != nil {
		// ip6_rt_get_dev_rcu: a local route's dst uses the VRF device or
		// the loopback device.
		if m := l3mdev(res.dev); m != nil && !needStrict(res.f6i.dst.addr) {
			out.Dev = m
		} else if res.dev.VRFTable() == 0 {
			out.Dev = f.rs.lo
		}
	}
	if e != 0 {
		return out, errno.New(e, "")
	}
	return out, nil
}
