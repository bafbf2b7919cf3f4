// addrconf.go holds the routes net/ipv6/addrconf.c makes through
// net/ipv6/route.c: an address's local route (addrconf_f6i_alloc), an
// anycast route, prefix routes (addrconf_prefix_route), ff00::/8
// (addrconf_add_mroute), and the removal of a prefix route
// (addrconf_get_prefix_route, as cleanup_prefix_route uses it). FIB
// implements netdev.IPv6FIB with them.

package fib6

import (
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// addrconfTable is the table of an addrconf route: the device's VRF
// table, else def (l3mdev_fib_table(dev) ? : def).
func addrconfTable(dev *netdev.Device, def uint32) uint32 {
	if m := l3mdev(dev); m != nil {
		return m.VRFTable()
	}
	return def
}

// addrconfConfig builds the fib6_config addrconf uses for r.
func addrconfConfig(r netdev.AddrconfRoute) *config {
	cfg := &config{dev: r.Dev, protocol: rt.ProtoKernel, flags: rtfUp} // mode 0: no netlink header
	switch r.Kind {
	case netdev.AddrconfLocal, netdev.AddrconfAnycast:
		// addrconf_f6i_alloc: table local, metric 0, usable while the
		// device is down.
		cfg.table = addrconfTable(r.Dev, rt.TableLocal)
		cfg.flags |= rtfNonexthop
		cfg.dst = keyOf(r.Prefix.Addr(), 128)
		cfg.ignoreDevDown = true
		if r.Kind == netdev.AddrconfAnycast {
			cfg.typ, cfg.flags = rt.TypeAnycast, cfg.flags|rtfAnycast
		} else {
			cfg.typ, cfg.flags = rt.TypeLocal, cfg.flags|rtfLocal
		}
	case netdev.AddrconfPrefix:
		// addrconf_prefix_route: main (RT6_TABLE_PREFIX) or the VRF's,
		// metric IFA_RT_PRIORITY or 256. An address added by request
		// gives its prefix route RTF_UP alone (/proc/net/ipv6_route shows
		// 00000001), with RTF_EXPIRES for a finite lifetime.
		cfg.table = r.Table
		if cfg.table == 0 {
			cfg.table = addrconfTable(r.Dev, rt.TableMain)
		}
		cfg.metric = r.Metric
		if cfg.metric == 0 {
			cfg.metric = prioAddrconf
		}
		cfg.typ = rt.TypeUnicast
		cfg.dst = keyOf(r.Prefix.Addr(), r.Prefix.Bits())
	case netdev.AddrconfMulticast:
		// addrconf_add_mroute: ff00::/8 in table local (or the VRF's).
		cfg.table = addrconfTable(r.Dev, rt.TableLocal)
		cfg.metric = prioAddrconf
		cfg.typ = rt.TypeMulticast
		cfg.dst = keyOf(netip.MustParseAddr("ff00::"), 8)
		cfg.ignoreDevDown = true
	}
	if r.Kind != netdev.AddrconfPrefix && r.Table != 0 {
		cfg.table = r.Table
	}
	return cfg
}

// addAddrconfRoute implements AddAddrconfRoute.
func (f *FIB) addAddrconfRoute(t *sim.Task, r netdev.AddrconfRoute) (netdev.Route6, error) {
	f.runTimers(t)
	cfg := addrconfConfig(r)
	if r.Expires != 0 {
		cfg.flags |= rtfExpires
		cfg.expires = r.Expires.Sub(t.Now())
	}
	rt6, err := f.infoCreate(t, cfg)
	if err != nil {
		return nil, err
	}
	err = f.insert(t, rt6, cfg.mode)
	if r.Kind == netdev.AddrconfLocal || r.Kind == netdev.AddrconfAnycast {
		// The caller keeps the allocation's reference (ifp->rt, aca_rt),
		// whether or not ip6_ins_rt linked the route.
		return rt6, err
	}
	f.release(t, rt6)
	return nil, err
}

// delPrefixRoute is addrconf_get_prefix_route (flags 0, noflags
// RTF_DEFAULT, no gateway) followed by ip6_del_rt.
//
// Kernel: addrconf_get_prefix_route, cleanup_prefix_route (net/ipv6/addrconf.c).
func (f *FIB) delPrefixRoute(t *sim.Task, dev *netdev.Device, p netip.Prefix, table uint32) {
	defer t.Frame("addrconf_get_prefix_route")()
	f.runTimers(t)
	if table == 0 {
		table = addrconfTable(dev, rt.TableMain)
	}
	tb := f.getTable(table)
	if tb == nil {
		return
	}
	fn := tb.locate(keyOf(p.Addr(), p.Bits()), key{}, true)
	if fn == nil {
		return
	}
	for r := fn.leaf; r != nil; r = r.next {
		if r == f.nullEntry || r.nhObj != nil {
			continue
		}
		if r.fnh.dev != dev || r.fnh.hasGW || r.flags&rtfDefault != 0 {
			continue
		}
		_ = f.delRT(t, r)
		return
	}
}

// RemovePrefsrc clears the preferred source address a of the routes
// through dev (every device when dev is nil) whose prefsrc is a: the
// address was deleted. It walks every table (fib6_clean_all), as the
// kernel does for every IPv6 address deletion (ipv6_del_addr).
//
// Kernel: rt6_remove_prefsrc, fib6_remove_prefsrc (net/ipv6/route.c).
func (f *FIB) RemovePrefsrc(t *sim.Task, dev *netdev.Device, a netip.Addr) {
	if !a.Is6() {
		return
	}
	b := a.As16()
	f.cleanAll(t, func(r *Info) int {
		if r.nhObj == nil && (dev == nil || r.fnh.dev == dev) && r != f.nullEntry && r.prefsrc.addr == b {
			r.prefsrc.plen = 0
		}
		return 0
	})
}
