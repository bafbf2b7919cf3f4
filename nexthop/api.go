// Package nexthop models the kernel's nexthop objects (net/ipv4/nexthop.c):
// objects by id, single nexthops and groups, the FIB entries that use them,
// and their removal when a device goes down or away — with the seed 000
// policies FlushPerNexthop (a full FIB flush after every removed nexthop
// that has FIB users) and FlushDeferred (need-flush propagated up through
// groups, one flush at the end).
package nexthop

import (
	"fmt"
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
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
	Weight uint16 // 1..255 (MaxWeight); 0 means 1
}

// Config describes a nexthop to add or replace (RTM_NEWNEXTHOP). The zero
// Config is not valid.
type Config struct {
	ID        ID             // NHA_ID; 0 allocates the next free id
	Family    int            // syscall.AF_INET or AF_INET6 for single nexthops (0: the gateway's, else AF_INET, as ip fills it); 0 for groups
	Gateway   netip.Addr     // NHA_GATEWAY
	Dev       *netdev.Device // NHA_OIF (resolved by the caller from a name or ifindex)
	OnLink    bool           // RTNH_F_ONLINK
	Blackhole bool           // NHA_BLACKHOLE
	Group     []GroupMember  // NHA_GROUP: a multipath group of existing single nexthops
	Protocol  uint8          // nh_protocol
	GroupType GroupType      // NHA_GROUP_TYPE; the zero value is GroupMultipath (added to the contract)
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
type GatewayChecker func(t *sim.Task, family int, gw netip.Addr, dev *netdev.Device, onlink bool) error

// The Table and Nexthop types (table.go) provide, for the FIB and for rtnl:
//
//	func NewTable(p Policy) *Table
//	func (tb *Table) SetGatewayChecker(c GatewayChecker)
//	func (tb *Table) Policy() Policy
//	func (tb *Table) Add(t *sim.Task, cfg Config) (*Nexthop, error)            // rtm_new_nexthop without NLM_F_REPLACE
//	func (tb *Table) Replace(t *sim.Task, cfg Config, f Flusher) (*Nexthop, error) // NLM_F_REPLACE
//	func (tb *Table) Del(t *sim.Task, id ID, f Flusher) error                   // rtm_del_nexthop
//	func (tb *Table) Get(id ID) *Nexthop
//	func (tb *Table) List() []*Nexthop                                          // by id
//	func (tb *Table) Len() int
//	func (tb *Table) FlushDev(t *sim.Task, dev *netdev.Device, ev netdev.Event, f Flusher) // nexthop_flush_dev
//	func (tb *Table) FlushAll(t *sim.Task, f Flusher)                           // flush_all_nexthops (netns exit)
//
//	func (nh *Nexthop) ID() ID
//	func (nh *Nexthop) Family() int
//	func (nh *Nexthop) IsGroup() bool
//	func (nh *Nexthop) Members() []GroupMember                 // empty for single nexthops
//	func (nh *Nexthop) Member(i int) *Nexthop                   // i-th member object
//	func (nh *Nexthop) Gateway() netip.Addr
//	func (nh *Nexthop) Dev() *netdev.Device
//	func (nh *Nexthop) OnLink() bool
//	func (nh *Nexthop) Blackhole() bool
//	func (nh *Nexthop) Dead() bool                              // removed from the table
//	func (nh *Nexthop) AddFIBUser(u FIBUser)                    // fib_info linked on nh->fi_list
//	func (nh *Nexthop) RemoveFIBUser(u FIBUser)
//	func (nh *Nexthop) FIBUsers() int
//	func (nh *Nexthop) String() string                          // as `ip nexthop show` prints it
//
// Additions to the contract (table.go, nexthop.go, group.go, users.go):
//
//	func (tb *Table) SetLoopback(lo *netdev.Device)            // blackholes need loopback up
//	func (nh *Nexthop) NumMembers() int                         // len(Members()) without the copy
//	func (nh *Nexthop) Parents() []*Nexthop                     // groups it is in (nh->grp_list)
//	func (nh *Nexthop) Scope() uint8                            // nhc_scope: link, or host for IPv4 device-only
//	func (nh *Nexthop) Protocol() uint8
//	func (nh *Nexthop) HasV4() bool                             // nhg->has_v4
//	func (nh *Nexthop) CheckScope(scope uint8) error            // fib_check_nexthop, for route insertion
//	type GroupType; Config.GroupType; const MaxWeight = 255
//	type ScopedFIBUser interface { FIBUser; RouteScope() uint8 }          // checked by Replace
//	type UpdateNotifier interface { FIBUser; NexthopUpdated(*sim.Task, *Nexthop) } // told by Replace
