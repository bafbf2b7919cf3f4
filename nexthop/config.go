// config.go follows the checks of a new nexthop that need the namespace's
// state and its construction in net/ipv4/nexthop.c: rtm_to_nh_config_rtnl,
// nh_check_attr_group_rtnl, valid_group_nh, nexthop_create, nh_create_ipv4,
// nh_create_ipv6 and nexthop_create_group, with the part of fib_check_nh
// (net/ipv4/fib_semantics.c) that does not need the FIB. The checks of
// rtm_to_nh_config, which need no state, are package rtnl's.

package nexthop

import (
	"net/netip"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// nhConfig is a validated Config (struct nh_config): the family resolved,
// the gateway normalised.
type nhConfig struct {
	Config
	family rt.Family
}

func einval(msg string) error { return errno.New(syscall.EINVAL, msg) }

// DefaultFamily is the nh_family iproute2's ipnh_modify fills in for a
// single nexthop sent without one: the gateway's address family, else
// AF_INET for a device or a blackhole, else AF_UNSPEC (0), which the
// kernel refuses.
func DefaultFamily(gw netip.Addr, blackhole, dev bool) rt.Family {
	switch {
	case gw.IsValid() && !gw.Is4():
		return rt.FamilyInet6
	case gw.IsValid() || blackhole || dev:
		return rt.FamilyInet
	}
	return rt.FamilyUnspec
}

// parseConfig makes the checks of a new nexthop that need the namespace's
// state: a group's members (nh_check_attr_group_rtnl), a single
// nexthop's device (rtm_to_nh_config_rtnl: registered, up, with carrier).
// Those that need none, which rtm_to_nh_config makes on the message (the
// family, the attributes a group, a blackhole or an fdb nexthop may have,
// a group's entries, the gateway's family, onlink without a gateway, a
// resilient group's parameters), are the request's: rtnl makes them
// before it builds the Config. Of those, the checks of a group's entries,
// type and resilient parameters (CheckGroup, CheckResilient) are made
// again here, so that a Config made of Go values cannot corrupt the
// table; its Family 0 on a single nexthop is filled in as DefaultFamily
// says.
//
// Kernel: rtm_to_nh_config_rtnl, nh_check_attr_group_rtnl
// (net/ipv4/nexthop.c).
func (tb *Table) parseConfig(cfg Config) (nhConfig, error) {
	c := nhConfig{Config: cfg, family: cfg.Family}
	if cfg.Group != nil {
		if err := checkGroupConfig(cfg); err != nil {
			return c, err
		}
		if err := tb.checkAttrGroup(cfg); err != nil {
			return c, err
		}
		c.family = rt.FamilyUnspec
		c.OnLink = false // nh_flags are not kept for groups
		return c, nil
	}
	if c.family == rt.FamilyUnspec {
		c.family = DefaultFamily(cfg.Gateway, cfg.Blackhole, cfg.Dev != nil)
	}
	if cfg.Blackhole {
		return c, nil
	}
	switch d := cfg.Dev; {
	case cfg.FDB:
	case d == nil || !d.Registered():
		return c, einval("Invalid device index")
	case !d.IsUp():
		return c, errno.New(syscall.ENETDOWN, "Nexthop device is not up")
	case !d.Carrier():
		return c, errno.New(syscall.ENETDOWN, "Carrier for nexthop device is down")
	}
	// The kernel keeps 0.0.0.0 and :: as "no gateway" (fc_gw_family 0, no
	// RTF_GATEWAY); only rtm_to_nh_config's ONLINK check saw the
	// attribute.
	c.Gateway = cfg.Gateway.WithZone("")
	if c.Gateway.IsUnspecified() {
		c.Gateway = netip.Addr{}
	}
	return c, nil
}

// MaxGroupMembers is the most members a group can have: NHA_GROUP holds a
// struct nexthop_grp (8 bytes) per member, and its 16-bit nla_len counts
// its 4-byte header too, so (65535-4)/8. The kernel checks no count
// (nh_check_attr_group checks only that the length is a multiple of 8);
// over rtnetlink a request cannot carry more. A request made of Go values
// has no such bound, so rtnl applies the one the wire implies, for every
// front end (EMSGSIZE, the errno of a message too long): a group's
// NHA_GROUP then always fits in its answers and notifications.
const MaxGroupMembers = (0xffff - 4) / 8

// GroupEntry is one member of a group as NHA_GROUP carries it (struct
// nexthop_grp), before the checks of CheckGroup.
type GroupEntry struct {
	ID ID
	// Weight is the member's weight, 1..MaxWeight (0 means 1): the
	// message's weight and weight_high plus one, so up to 65536, which is
	// refused.
	Weight uint32
	Resvd  uint16 // resvd2, which must be 0
}

// CheckGroup makes the checks of a group's entries that need no state,
// in the kernel's order: a group has members (EINVAL), at most
// MaxGroupMembers (EMSGSIZE: see there), and entry by entry a zero
// reserved field, a weight of at most MaxWeight and an id that no later
// entry repeats (each EINVAL). It finds in one pass the error the
// kernel's walk, which compares each entry with those after it, finds
// first. Both rtnl, on a request as sent, and the Table, on a Config,
// make these checks: a group that passes them cannot corrupt the table.
//
// Kernel: nh_check_attr_group (net/ipv4/nexthop.c).
func CheckGroup(g []GroupEntry) error {
	if len(g) == 0 {
		return einval("Invalid length for nexthop group attribute")
	}
	if len(g) > MaxGroupMembers {
		return errno.New(syscall.EMSGSIZE, "")
	}
	last := make(map[ID]int, len(g))
	for i, e := range g {
		last[e.ID] = i
	}
	for i, e := range g {
		if e.Resvd != 0 {
			return einval("Reserved field in nexthop_grp must be 0")
		}
		if e.Weight > MaxWeight {
			return einval("Invalid value for weight")
		}
		if last[e.ID] > i {
			return einval("Nexthop id can not be used twice in a group")
		}
	}
	return nil
}

// CheckResilient makes the checks of a resilient group's parameters that
// need no state: a bucket count of 0, and timers that a u32 of clock_t
// cannot carry (which only a Go request can have). nil, no NHA_RES_GROUP,
// passes.
//
// Kernel: rtm_to_nh_config_grp_res, rtm_nh_get_timer (net/ipv4/nexthop.c).
func CheckResilient(rc *ResilientConfig) error {
	if rc == nil {
		return nil
	}
	if rc.HasBuckets && rc.Buckets == 0 {
		return einval("Number of buckets needs to be non-0")
	}
	bad := func(has bool, d time.Duration) bool { return has && (d < 0 || d >= MaxResilientTimer) }
	if bad(rc.HasIdleTimer, rc.IdleTimer) || bad(rc.HasUnbalancedTimer, rc.UnbalancedTimer) {
		return einval("Timer value too large")
	}
	return nil
}

// checkGroupConfig makes CheckGroup's and CheckResilient's checks, and
// the group type's, on a group Config, which rtnl has already made on a
// request: they keep a Config made of Go values from corrupting the
// table.
func checkGroupConfig(cfg Config) error {
	if cfg.GroupType > GroupTypeMax {
		return einval("Invalid group type")
	}
	g := make([]GroupEntry, len(cfg.Group))
	for i, m := range cfg.Group {
		g[i] = GroupEntry{ID: m.ID, Weight: uint32(m.Weight)}
	}
	if err := CheckGroup(g); err != nil {
		return err
	}
	if cfg.GroupType == GroupResilient {
		return CheckResilient(cfg.Resilient)
	}
	return nil
}

// checkAttrGroup checks a group's members: each exists, is a single
// nexthop (a blackhole only alone), and fdb as the group is, of one
// family in an fdb group.
//
// Kernel: nh_check_attr_group_rtnl, valid_group_nh,
// nh_check_attr_fdb_group (net/ipv4/nexthop.c).
func (tb *Table) checkAttrGroup(cfg Config) error {
	g := cfg.Group
	for i := range g {
		nh := tb.Get(g[i].ID)
		if nh == nil {
			return einval("Invalid nexthop id")
		}
		if nh.grp != nil {
			if nh.grp.res != nil {
				return einval("Resilient group can not be a nexthop within a group")
			}
			return einval("Hash-threshold group can not be a nexthop within a group")
		}
		if nh.info.blackhole && len(g) > 1 {
			return einval("Blackhole nexthop can not be used in a group with more than 1 path")
		}
		// nh_check_attr_fdb_group: an fdb group has fdb members of one
		// family, the first member's.
		if cfg.FDB {
			if !nh.info.fdb {
				return einval("FDB nexthop group can only have fdb nexthops")
			}
			if nh.info.family != tb.Get(g[0].ID).info.family {
				return einval("FDB nexthop group cannot have mixed family nexthops")
			}
		} else if nh.info.fdb {
			return einval("Non FDB nexthop group cannot have fdb nexthops")
		}
	}
	return nil
}

// create builds the nexthop a validated config describes, not yet in the
// table and not yet linked anywhere: the candidate of an add or a replace.
// A single nexthop's gateway (any IPv6 nexthop's device) is checked here,
// by the GatewayChecker.
//
// Kernel: nexthop_create, nh_create_ipv4, nh_create_ipv6,
// nexthop_create_group (net/ipv4/nexthop.c).
func (tb *Table) create(t *sim.Task, c nhConfig, id ID) (*Nexthop, error) {
	if c.Group == nil {
		// A single nexthop and its first nh_info in one allocation.
		sn := &singleNexthop{Nexthop: Nexthop{id: id, protocol: c.Protocol}}
		return tb.createSingle(t, c, &sn.Nexthop, &sn.info)
	}
	nh := &Nexthop{id: id, protocol: c.Protocol}
	g := &nhGroup{entries: make([]*grpEntry, len(c.Group))}
	for i, m := range c.Group {
		w := m.Weight
		if w == 0 {
			w = 1
		}
		g.entries[i] = &grpEntry{nh: tb.Get(m.ID), parent: nh, weight: w}
	}
	g.hasV4 = computeHasV4(g.entries)
	g.fdb = c.FDB
	if c.GroupType == GroupResilient {
		g.res = tb.newResTable(c.Resilient)
	}
	nh.grp = g
	return nh, nil
}

// singleNexthop is how a single nexthop is allocated: with its first
// nh_info (a replace installs a separately allocated one).
type singleNexthop struct {
	Nexthop
	info nhInfo
}

// createSingle fills in a single nexthop's nh_info and checks it.
func (tb *Table) createSingle(t *sim.Task, c nhConfig, nh *Nexthop, info *nhInfo) (*Nexthop, error) {
	*info = nhInfo{
		family:    c.family,
		gw:        c.Gateway,
		dev:       c.Dev,
		onlink:    c.OnLink,
		blackhole: c.Blackhole,
		fdb:       c.FDB,
		scope:     scopeLink,
	}
	if info.fdb {
		// nh_create_ipv4 checks nothing of an fdb nexthop (its scope stays
		// link); fib6_nh_init keeps an IPv6 one's gateway, "::" included.
		if c.family == rt.FamilyInet6 && !info.gw.IsValid() {
			info.gw = netip.IPv6Unspecified()
		}
		nh.info = info
		return nh, nil
	}
	if c.family == rt.FamilyInet && !info.gw.IsValid() {
		// fib_check_nh_nongw: a device-only IPv4 nexthop (a blackhole uses
		// loopback) is host scope and may not be onlink.
		if info.onlink {
			return nil, einval("Invalid flags for nexthop - PERVASIVE and ONLINK can not be set")
		}
		info.scope = scopeHost
	}
	if info.blackhole && tb.loopback != nil && !tb.loopback.IsUp() {
		if c.family == rt.FamilyInet {
			return nil, errno.New(syscall.ENETDOWN, "Device for nexthop is not up") // fib_check_nh_nongw
		}
		return nil, errno.New(syscall.ENETDOWN, "Nexthop device is not up") // fib6_nh_init
	}
	// nh_create_ipv4 checks a gateway (fib_check_nh); nh_create_ipv6 has
	// fib6_nh_init check every IPv6 nexthop, a device-only one too (its
	// device must have IPv6 enabled).
	if tb.check != nil && (info.gw.IsValid() || c.family == rt.FamilyInet6 && !info.blackhole) {
		scope, err := tb.check(t, c.family, info.gw, info.dev, info.onlink)
		if err != nil {
			return nil, err
		}
		info.scope = scope
	}
	nh.info = info
	return nh, nil
}
