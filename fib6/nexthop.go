// nexthop.go joins IPv6 routes to nexthop objects: a route with `nhid` is
// on the object's IPv6 user list (nh->f6i_list) while it is in its table,
// and removing the object deletes it (__remove_nexthop_fib → ip6_del_rt).
// Replacing the object keeps the routes: they read its new definition.

package fib6

import (
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// NexthopRemoved implements nexthop.IPv6User: the route's nexthop object
// was removed, so the route is deleted.
//
// Kernel: __remove_nexthop_fib (net/ipv4/nexthop.c), ip6_del_rt.
func (r *Info) NexthopRemoved(t *sim.Task) {
	if r.node == nil || r.table == nil {
		return
	}
	_ = r.table.fib.delRT(t, r)
}

// nhLinked puts a route that joined its table on its nexthop object's user
// list (fib6_add's list_add on nh->f6i_list).
func nhLinked(r *Info) {
	if r.nhObj != nil {
		r.nhObj.AddIPv6User(r)
	}
}

// nhUnlink takes a route that left its table off its nexthop object's user
// list (fib6_purge_rt's list_del of nh_list).
func nhUnlink(_ *sim.Task, r *Info) {
	if r.nhObj != nil {
		r.nhObj.RemoveIPv6User(r)
	}
}

// CheckGatewayScope validates an IPv6 nexthop object's gateway and device
// as nh_create_ipv6 has fib6_nh_init do it — the gateway must not be local,
// must be unicast and, unless onlink or link-local, reached by a connected
// route (through the rules' tables, local then main, as fc_table is 0
// outside a VRF) — and returns the nexthop's scope, RT_SCOPE_LINK. It fits
// nexthop.GatewayScopeChecker for family AF_INET6.
//
// Kernel: nh_create_ipv6 (net/ipv4/nexthop.c), fib6_nh_init (net/ipv6/route.c).
func (f *FIB) CheckGatewayScope(t *sim.Task, family rt.Family, gw netip.Addr, dev *netdev.Device, onlink bool) (uint8, error) {
	cfg := &config{dev: dev, onlink: onlink, flags: rtfUp}
	if m := l3mdev(dev); m != nil {
		cfg.table = m.VRFTable()
	}
	if gw.IsValid() && !gw.IsUnspecified() {
		cfg.gw, cfg.flags = gw, cfg.flags|rtfGateway
	}
	var n nh
	if err := f.nhInit(t, &n, cfg); err != nil {
		return 0, err
	}
	if n.dev != nil {
		n.dev.Put() // the check keeps no reference
	}
	return uint8(rt.ScopeLink), nil
}
