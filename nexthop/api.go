// The package's shared vocabulary: nexthop ids, the seed 000 flush
// policy, group members, the configuration, and the interfaces the FIB
// implements for the nexthop code (FIBUser, Flusher, the gateway checks).

// Package nexthop models the kernel's nexthop objects (net/ipv4/nexthop.c):
// objects by id, single nexthops and groups, the FIB entries that use them,
// and their removal when a device goes down or away — with the seed 000
// policies FlushPerNexthop (a full FIB flush after every removed nexthop
// that has FIB users) and FlushDeferred (need-flush propagated up through
// groups, one flush at the end).
//
// A Table (table.go) holds a namespace's nexthops; a Nexthop (nexthop.go) is
// one object, single or group (group.go): a hash-threshold group
// (select.go) or a resilient group, whose bucket table and idle and
// unbalanced timers run in virtual time (resilient.go); the FIB links its
// entries to nexthops as FIBUser values (users.go for the optional
// interfaces). Fdb nexthops and groups (Config.FDB), which the bridge FDB
// of a VXLAN device uses and routes may not, are kept and checked as the
// kernel does; netsim has no VXLAN device to use them. Encapsulations
// (NHA_ENCAP) are not modelled.
package nexthop

import (
	"fmt"
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// ID is a nexthop object id (NHA_ID). The zero ID is never a valid object
// id; in a Config it means "allocate one".
type ID uint32

// Policy is how removing a device's nexthops flushes the FIB (seed 000,
// "ipv4: Flush the FIB once per dev nexthop removal").
type Policy uint8

const (
	// FlushPerNexthop runs a full fib_flush after every removed nexthop
	// that has FIB users (the kernel before the patch).
	FlushPerNexthop Policy = iota
	// FlushDeferred marks the FIB users dead, propagates "need flush" up
	// through groups, and flushes once at the end (after the patch).
	FlushDeferred
)

// String returns "per-nexthop" or "deferred".
func (p Policy) String() string {
	switch p {
	case FlushPerNexthop:
		return "per-nexthop"
	case FlushDeferred:
		return "deferred"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// GroupMember is one member of a nexthop group (struct nexthop_grp).
type GroupMember struct {
	ID     ID
	Weight uint16 // 1..MaxWeight; 0 means 1
}

// Config describes a nexthop to add or replace (RTM_NEWNEXTHOP), as
// struct nh_config does once rtm_to_nh_config has checked the message:
// package rtnl makes those checks (a family that is AF_INET or AF_INET6,
// or 0 for a group; no device, gateway or blackhole in a group, whose
// members are distinct and at least one, with resilient parameters only
// for a resilient group, a bucket count that is not 0 and timers a u32 of
// clock_t carries; no device or gateway with a blackhole, no device with
// an fdb nexthop, a device otherwise; a gateway of the family; onlink only
// with a gateway) before it builds a Config, and the Table trusts them.
// The zero Config is not valid.
type Config struct {
	ID        ID             // NHA_ID; 0 allocates the next free id
	Family    rt.Family      // rt.FamilyInet or rt.FamilyInet6 for single nexthops (0: the gateway's, else AF_INET, as ip fills it); 0 for groups
	Gateway   netip.Addr     // NHA_GATEWAY
	Dev       *netdev.Device // NHA_OIF (resolved by the caller from a name or ifindex)
	OnLink    bool           // RTNH_F_ONLINK
	Blackhole bool           // NHA_BLACKHOLE
	// FDB is NHA_FDB: a nexthop for the bridge FDB (a VXLAN remote), with
	// a gateway and no device, which routes may not use; or a group of
	// such nexthops.
	FDB       bool
	Group     []GroupMember // NHA_GROUP: a multipath group of existing single nexthops
	Protocol  uint8         // nh_protocol
	GroupType GroupType     // NHA_GROUP_TYPE; the zero value is GroupMultipath
	// Resilient is NHA_RES_GROUP, the parameters of a resilient group
	// (GroupResilient); nil sends no such attribute. A multipath group
	// may not have it.
	Resilient *ResilientConfig
}

// FIBUser is a FIB entry that uses a nexthop object (struct fib_info with
// fi->nh): removing the nexthop marks it dead (RTNH_F_DEAD) so the next FIB
// flush removes its routes.
type FIBUser interface {
	MarkDead()
}

// Flusher removes dead entries from every FIB table of the namespace
// (fib_flush). The FIB implements it; nexthop calls it per its Policy.
type Flusher interface {
	FlushFIB(t *sim.Task)
}

// GatewayChecker validates a single nexthop's gateway on its device the
// way fib_check_nh does (a connected route must reach it unless onlink),
// returning the kernel's errno and message ("Nexthop has invalid gateway").
// The FIB provides it.
type GatewayChecker func(t *sim.Task, family rt.Family, gw netip.Addr, dev *netdev.Device, onlink bool) error

// GatewayScopeChecker is a GatewayChecker that also returns the scope the
// check gave the nexthop (RT_SCOPE_*): the scope of the route that reaches
// the gateway, so RT_SCOPE_HOST for a local address, RT_SCOPE_LINK for a
// gateway on a connected subnet or onlink.
type GatewayScopeChecker func(t *sim.Task, family rt.Family, gw netip.Addr, dev *netdev.Device, onlink bool) (uint8, error)
