package rtnl

import (
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// TableExists reports whether the namespace has IPv4 routing table id, as
// a dump of that table would find it (fib_get_table). The main table
// always exists: a new namespace has it (and not yet local or default).
func (h *Handle) TableExists(id uint32) bool {
	var ok bool
	_ = h.do("RTM_GETROUTE", func(t *sim.Task, _ *netdev.Table) error {
		ok = id == fib.TableMain || h.n.fib.Table(id) != nil
		return nil
	})
	return ok
}

// TableExists6 reports whether IPv6 table id exists, which a strict dump
// of the table asks first.
//
// Kernel: inet6_dump_fib → fib6_get_table (net/ipv6/ip6_fib.c).
func (h *Handle) TableExists6(id uint32) bool {
	var ok bool
	_ = h.do("RTM_GETROUTE", func(t *sim.Task, _ *netdev.Table) error {
		ok = h.n.fib6.Table(id) != nil
		return nil
	})
	return ok
}
