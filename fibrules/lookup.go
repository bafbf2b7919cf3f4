// Rule lookup: fib_rules_lookup (net/core/fib_rules.c) with the IPv4
// match/action/suppress hooks of net/ipv4/fib_rules.c, and the adapter
// that makes the IPv4 FIB resolve lookups through the rules (__fib_lookup).

package fibrules

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Flow is a lookup key: the parts of struct flowi the rules read. The zero
// Flow is a flow from and to the unspecified address, uid 0, no mark, no
// devices.
type Flow struct {
	Src, Dst     netip.Addr     // flowi4_saddr/daddr (flowi6_*); invalid means unspecified
	IIF, OIF     netdev.IfIndex // flowi_iif, flowi_oif
	Mark         uint32         // flowi_mark
	UID          uint32         // flowi_uid
	Sport, Dport uint16         // fl4_sport, fl4_dport
	TOS          uint8          // flowi4_tos (the dsfield; its DSCP bits are matched)
	IPProto      uint8          // flowi4_proto
	Scope        fib.Scope      // flowi4_scope, passed to IPv4 table lookups
	L3MDevTable  uint32         // the table of the flow's l3mdev (VRF); 0 without one
}

// Hit is what a table lookup found that suppression rules look at (struct
// fib_result's prefixlen and first nexthop device). The zero Hit is a /0
// route without a device.
type Hit struct {
	PrefixLen int
	Dev       *netdev.Device
}

// TableLookup looks the flow up in one table for a to_tbl rule. It fails
// with EAGAIN when the table does not exist, has no matching route or the
// route is a throw, and the walk goes on with the next rule; any other
// error ends the lookup.
type TableLookup func(t *sim.Task, table uint32) (Hit, error)

func isAgain(err error) bool {
	e, ok := err.(*errno.Error)
	return ok && e.Errno == syscall.EAGAIN
}

var (
	errSearch      = errno.New(syscall.ESRCH, "")
	errBlackhole   = errno.New(syscall.EINVAL, "")
	errUnreachable = errno.New(syscall.ENETUNREACH, "")
	errProhibit    = errno.New(syscall.EACCES, "")
)

// Lookup walks the rules in pref order and returns the rule whose action
// decided the flow: the first matching to_tbl rule whose table lookup
// succeeded and was not suppressed, or failed with something other than
// EAGAIN, or the first matching blackhole (EINVAL), unreachable
// (ENETUNREACH) or prohibit (EACCES) rule. A matching goto continues at
// its target (or is skipped while unresolved); nop is skipped. When no
// rule decides, it fails with ESRCH. It takes no lock, as the kernel reads
// the rules under RCU.
//
// Kernel: fib_rules_lookup, fib_rule_match (net/core/fib_rules.c),
// fib4_rule_match, fib4_rule_action, fib4_rule_suppress (net/ipv4/fib_rules.c).
func (o *Ops) Lookup(t *sim.Task, fl *Flow, tl TableLookup) (Rule, error) {
	var n int64
	defer func() { t.Charge(sim.RuleScan, n) }()
	for x := o.first(); x != nil; x = x.next.Load() {
	jumped:
		n++
		if !x.match(fl) {
			continue
		}
		var err error
		var hit Hit
		switch x.action {
		case ActGoto:
			if tg := x.ctarget.Load(); tg != nil {
				x = tg
				goto jumped
			}
			continue
		case ActNop:
			continue
		case ActToTable:
			tb := x.table
			if x.opts.L3MDev {
				tb = fl.L3MDevTable
			}
			hit, err = tl(t, tb)
		case ActUnreachable:
			err = errUnreachable
		case ActProhibit:
			err = errProhibit
		default:
			err = errBlackhole
		}
		if err == nil && x.suppress(hit) {
			continue
		}
		if err == nil || !isAgain(err) {
			return x.dump(o.family), err
		}
	}
	return Rule{}, errSearch
}

// match is fib_rule_match with fib4_rule_match/fib6_rule_match folded in.
func (x *entry) match(fl *Flow) bool {
	return x.matchAll(fl) != (x.flags&FlagInvert != 0)
}

func (x *entry) matchAll(fl *Flow) bool {
	r := x.opts
	if i := x.iif.Load(); i != 0 && netdev.IfIndex(i) != fl.IIF {
		return false
	}
	if i := x.oif.Load(); i != 0 && netdev.IfIndex(i) != fl.OIF {
		return false
	}
	if (r.FwMark^fl.Mark)&r.FwMask != 0 {
		return false
	}
	// A flow routed by netsim carries no tunnel metadata (its
	// flowi_tun_key.tun_id is 0): a rule of a tunnel id matches none.
	if r.TunID != 0 {
		return false
	}
	if r.L3MDev && fl.L3MDevTable == 0 {
		return false
	}
	if fl.UID < r.UID.Start || fl.UID > r.UID.End {
		return false
	}
	if r.Src.IsValid() && !r.Src.Contains(unspec(fl.Src, r.Src)) {
		return false
	}
	if r.Dst.IsValid() && !r.Dst.Contains(unspec(fl.Dst, r.Dst)) {
		return false
	}
	if r.TOS != 0 && r.TOS != fl.TOS&0xfc {
		return false
	}
	if r.IPProto != 0 && r.IPProto != fl.IPProto {
		return false
	}
	if r.Sport.set() && !r.Sport.contains(fl.Sport) {
		return false
	}
	if r.Dport.set() && !r.Dport.contains(fl.Dport) {
		return false
	}
	return true
}

// unspec returns a, or the unspecified address of p's family when a is
// invalid.
func unspec(a netip.Addr, p netip.Prefix) netip.Addr {
	if a.IsValid() {
		return a
	}
	if p.Addr().Is4() {
		return netip.IPv4Unspecified()
	}
	return netip.IPv6Unspecified()
}

// suppress is fib4_rule_suppress: refuse a result whose prefix is not
// longer than SuppressPrefixLen or whose device is in SuppressIfGroup.
func (x *entry) suppress(h Hit) bool {
	if h.PrefixLen <= int(x.opts.SuppressPrefixLen) {
		return true
	}
	return x.opts.SuppressIfGroup != -1 && h.Dev != nil && h.Dev.Group() == uint32(x.opts.SuppressIfGroup)
}

// LookupFIB resolves fl through the rules of the IPv4 ops o and the tables
// of f: to_tbl rules look fl.Dst up in their table with fl.TOS, fl.Scope
// and fl.OIF. It returns the route found and the rule that chose it. When
// no rule decides, it fails with ENETUNREACH. The caller holds RTNL (the
// FIB needs it), not the ops lock.
//
// Kernel: __fib_lookup (net/ipv4/fib_rules.c).
func (o *Ops) LookupFIB(t *sim.Task, f *fib.FIB, fl Flow) (fib.Result, Rule, error) {
	var res fib.Result
	ffl := fib.Flow{Dst: fl.Dst, TOS: fl.TOS, Scope: fl.Scope, OIF: fl.OIF}
	r, err := o.Lookup(t, &fl, func(t *sim.Task, id uint32) (Hit, error) {
		tb := f.Table(id)
		if tb == nil {
			return Hit{}, errno.New(syscall.EAGAIN, "")
		}
		var err error
		res, err = tb.Lookup(t, ffl)
		return Hit{PrefixLen: res.Prefix.Bits(), Dev: res.Dev}, err
	})
	if err == errSearch {
		return fib.Result{}, Rule{}, errno.New(syscall.ENETUNREACH, "")
	}
	if err == errBlackhole || err == errUnreachable || err == errProhibit {
		return fib.Result{}, r, err
	}
	return res, r, err
}

// FIBRuleLookup returns the lookup to install with (*fib.FIB).SetRuleLookup
// so that f, once it has custom rules, resolves flows through o.
func (o *Ops) FIBRuleLookup(f *fib.FIB) fib.RuleLookup {
	return func(t *sim.Task, fl fib.Flow) (fib.Result, error) {
		res, _, err := o.LookupFIB(t, f, Flow{Src: fl.Src, Dst: fl.Dst, IIF: fl.IIF, OIF: fl.OIF,
			Mark: fl.Mark, UID: fl.UID, TOS: fl.TOS, Scope: fl.Scope,
			IPProto: fl.Proto, Sport: fl.Sport, Dport: fl.Dport})
		return res, err
	}
}

// NewIPv4 returns the IPv4 rules of the namespace whose FIB is f, with the
// policy, device lookup and options of cfg (its Family, Unmerge and
// HasTable are set from f), and makes f use them: the first custom rule
// unmerges f's local and main tables, and lookups then go through the rules.
//
// Kernel: fib4_rules_init (net/ipv4/fib_rules.c).
func NewIPv4(w *sim.World, cfg Config, f *fib.FIB) (*Ops, error) {
	cfg.Family = rt.FamilyInet
	cfg.Unmerge = f.Unmerge
	cfg.HasTable = f.HasTable // without RTNL under LockPerOps
	o, err := NewOps(w, cfg)
	if err != nil {
		return nil, err
	}
	f.SetRuleLookup(o.FIBRuleLookup(f))
	return o, nil
}
