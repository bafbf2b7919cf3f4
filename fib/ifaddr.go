// The routes IPv4 addresses bring and the FIB's reaction to address and
// device events: fib_magic, fib_add_ifaddr, fib_modify_prefix_metric,
// fib_del_ifaddr, fib_disable_ip, fib_inetaddr_event and fib_netdev_event
// (net/ipv4/fib_frontend.c).

package fib

import (
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// fibMagic is fib_magic: add or delete a kernel route for an address, with
// priority (an address's IFA_RT_PRIORITY for its prefix route, else 0).
func (f *FIB) fibMagic(t *sim.Task, add bool, typ Type, dst uint32, dstLen uint8, prim netdev.Addr, dev *netdev.Device, priority uint32) {
	tbID := TableLocal
	if typ == TypeUnicast {
		tbID = TableMain
	}
	tb := f.newTable(tbID)
	cfg := config{
		protocol: ProtoKernel, typ: typ, dst: dst, dstLen: dstLen,
		prefsrc: prim.Prefix.Addr(), oif: dev, mode: rt.NLMCreate | rt.NLMAppend, table: tb.id,
		scope: ScopeLink, priority: priority, kernel: true,
	}
	if typ == TypeLocal {
		cfg.scope = ScopeHost
	}
	if add {
		_ = tb.insert(t, &cfg)
	} else {
		_ = tb.delete(t, &cfg)
	}
}

// prefixRouteType is the type of an address's prefix route: local on a
// loopback device, unicast elsewhere.
func prefixRouteType(dev *netdev.Device) Type {
	if dev.Flags()&netdev.FlagLoopback != 0 {
		return TypeLocal
	}
	return TypeUnicast
}

func mask(bits int) uint32 {
	if bits <= 0 {
		return 0
	}
	return ^uint32(0) << (keyLength - bits)
}

// primaryOf is inet_ifa_byprefix: the primary address of a's subnet on dev.
func primaryOf(dev *netdev.Device, a netdev.Addr) (netdev.Addr, bool) {
	prefix := addr4(a.Address()) & mask(a.Prefix.Bits())
	for _, o := range dev.Inet4Addrs() {
		if o.Flags&netdev.AddrSecondary == 0 && o.Prefix.Bits() == a.Prefix.Bits() &&
			addr4(o.Address())&mask(o.Prefix.Bits()) == prefix {
			return o, true
		}
	}
	return netdev.Addr{}, false
}

// AddIfAddr adds the routes an IPv4 address brings: its local /32 in table
// local, and if the device is up its broadcast address (when one was given),
// the prefix route in main and the subnet broadcast in local (for prefixes
// shorter than /31). Secondary addresses add only their local and broadcast
// routes, with the primary as preferred source. The caller holds RTNL.
//
// Kernel: fib_add_ifaddr (net/ipv4/fib_frontend.c).
func (f *FIB) AddIfAddr(t *sim.Task, dev *netdev.Device, a netdev.Addr) {
	defer t.Frame("fib_add_ifaddr")()
	f.addIfAddr(t, dev, a)
	f.charge(t)
}

func (f *FIB) addIfAddr(t *sim.Task, dev *netdev.Device, a netdev.Addr) {
	if !a.Prefix.Addr().Is4() {
		return
	}
	prim := a
	if a.Flags&netdev.AddrSecondary != 0 {
		p, ok := primaryOf(dev, a)
		if !ok {
			return
		}
		prim = p
	}
	addr := addr4(a.Prefix.Addr())
	m := mask(a.Prefix.Bits())
	prefix := addr4(a.Address()) & m // the peer's prefix on a point-to-point address
	f.fibMagic(t, true, TypeLocal, addr, 32, prim, dev, 0)
	if !dev.IsUp() {
		return
	}
	if brd := addr4(a.Broadcast); a.Broadcast.IsValid() && brd != 0xffffffff {
		f.fibMagic(t, true, TypeBroadcast, brd, 32, prim, dev, 0)
	}
	if prefix != 0 && a.Flags&netdev.AddrSecondary == 0 && (prefix != addr || a.Prefix.Bits() < 32) {
		if a.Flags&netdev.AddrNoPrefixRoute == 0 {
			f.fibMagic(t, true, prefixRouteType(dev), prefix, uint8(a.Prefix.Bits()), prim, dev, a.Metric)
		}
		if a.Prefix.Bits() < 31 {
			f.fibMagic(t, true, TypeBroadcast, prefix|^m, 32, prim, dev, 0)
		}
	}
}

// ModifyPrefixRoute moves the prefix route of a, an address of dev that
// is being given metric newMetric (`ip addr replace/change ... metric N`),
// to that metric: the new route is added, then the one of a's metric
// deleted. Secondary addresses, addresses without a prefix route and
// devices that are down have none to move. The caller holds RTNL.
//
// Kernel: fib_modify_prefix_route (net/ipv4/fib_frontend.c).
func (f *FIB) ModifyPrefixRoute(t *sim.Task, dev *netdev.Device, a netdev.Addr, newMetric uint32) {
	if !a.Prefix.Addr().Is4() {
		return
	}
	m := mask(a.Prefix.Bits())
	prefix := addr4(a.Address()) & m
	if !dev.IsUp() || a.Flags&(netdev.AddrSecondary|netdev.AddrNoPrefixRoute) != 0 || prefix == 0 ||
		prefix == addr4(a.Prefix.Addr()) && a.Prefix.Bits() == 32 {
		return
	}
	f.fibMagic(t, true, TypeUnicast, prefix, uint8(a.Prefix.Bits()), a, dev, newMetric)
	f.fibMagic(t, false, TypeUnicast, prefix, uint8(a.Prefix.Bits()), a, dev, a.Metric)
	f.charge(t)
}

// DelIfAddr removes the routes of an IPv4 address that was removed from dev
// (dev's remaining addresses are consulted so that routes another address
// still needs stay), and when the address is really gone, flushes the routes
// that used it as preferred source. The caller holds RTNL.
//
// Kernel: fib_del_ifaddr (net/ipv4/fib_frontend.c) without secondary
// promotion (iprim is NULL).
func (f *FIB) DelIfAddr(t *sim.Task, dev *netdev.Device, a netdev.Addr) {
	defer t.Frame("fib_del_ifaddr")()
	f.delIfAddr(t, dev, a)
	f.charge(t)
}

func (f *FIB) delIfAddr(t *sim.Task, dev *netdev.Device, a netdev.Addr) {
	if !a.Prefix.Addr().Is4() {
		return
	}
	const (
		localOK = 1 << iota
		brdOK
		brd0OK
		brd1OK
	)
	local := addr4(a.Prefix.Addr())
	m := mask(a.Prefix.Bits())
	brd := addr4(a.Address()) | ^m
	anyAddr := addr4(a.Address()) & m
	ifaBrd := addr4(a.Broadcast)
	prim := a
	subnet := false
	remaining := dev.Inet4Addrs()
	if a.Flags&netdev.AddrSecondary != 0 {
		// A secondary goes before its primary, except from a device
		// going away, which removes its addresses first to last: a
		// secondary without its primary is left alone (its routes go
		// with the device, fib_disable_ip; routes that use it as
		// preferred source stay).
		p, ok := primaryOf(dev, a)
		if !ok {
			return
		}
		prim = p
	} else if anyAddr != 0 && (anyAddr != local || a.Prefix.Bits() < 32) {
		if a.Flags&netdev.AddrNoPrefixRoute == 0 {
			f.fibMagic(t, false, prefixRouteType(dev), anyAddr, uint8(a.Prefix.Bits()), prim, dev, a.Metric)
		}
		subnet = true
	}
	primLocal := addr4(prim.Prefix.Addr())
	ok := 0
	gone := true
	if dev.Registered() {
		sameSrc := false
		var prim1 *netdev.Addr
		for i := range remaining {
			o := &remaining[i]
			if o.Prefix == a.Prefix && o.Peer == a.Peer && o.Broadcast == a.Broadcast {
				gone = false
				continue
			}
			oLocal := addr4(o.Prefix.Addr())
			if o.Flags&netdev.AddrSecondary != 0 {
				if o.Prefix.Bits() == prim.Prefix.Bits() && sameNet(addr4(o.Address()), addr4(prim.Address()), prim.Prefix.Bits()) {
					p := prim
					prim1 = &p
				} else {
					if !sameSrc {
						continue
					}
					if prim1 == nil || o.Prefix.Bits() != prim1.Prefix.Bits() ||
						!sameNet(addr4(o.Address()), addr4(prim1.Address()), prim1.Prefix.Bits()) {
						p, found := primaryOf(dev, *o)
						if !found {
							prim1 = nil
							continue
						}
						prim1 = &p
					}
					if addr4(prim1.Prefix.Addr()) != primLocal {
						continue
					}
				}
			} else {
				if primLocal != oLocal {
					continue
				}
				p := *o
				prim1 = &p
				if prim.Prefix != o.Prefix || prim.Peer != o.Peer {
					sameSrc = true
				}
			}
			oBrd := addr4(o.Broadcast)
			if local == oLocal {
				ok |= localOK
			}
			if ifaBrd == oBrd {
				ok |= brdOK
			}
			if brd == oBrd {
				ok |= brd1OK
			}
			if anyAddr == oBrd {
				ok |= brd0OK
			}
			if prim1 != nil && prim1.Prefix == o.Prefix && prim1.Peer == o.Peer && o.Prefix.Bits() < 31 {
				m1 := mask(o.Prefix.Bits())
				brd1, any1 := addr4(o.Address())|^m1, addr4(o.Address())&m1
				if any1 != 0 {
					if ifaBrd == brd1 || ifaBrd == any1 {
						ok |= brdOK
					}
					if brd == brd1 || brd == any1 {
						ok |= brd1OK
					}
					if anyAddr == brd1 || anyAddr == any1 {
						ok |= brd0OK
					}
				}
			}
		}
	}
	if ok&brdOK == 0 {
		f.fibMagic(t, false, TypeBroadcast, ifaBrd, 32, prim, dev, 0)
	}
	if subnet && a.Prefix.Bits() < 31 {
		if ok&brd1OK == 0 {
			f.fibMagic(t, false, TypeBroadcast, brd, 32, prim, dev, 0)
		}
		if ok&brd0OK == 0 {
			f.fibMagic(t, false, TypeBroadcast, anyAddr, 32, prim, dev, 0)
		}
	}
	if ok&localOK == 0 {
		f.fibMagic(t, false, TypeLocal, local, 32, prim, dev, 0)
		// inet_addr_type_dev_table: dev only chooses the table (its
		// l3mdev's, else local); the address may still be local through
		// another device.
		if gone && f.addrType(t, a.Prefix.Addr(), TableLocal) != TypeLocal {
			if f.syncDownAddr(a.Prefix.Addr()) > 0 {
				f.flush(t)
			}
		}
	}
}

func sameNet(a, b uint32, bits int) bool { return (a^b)&mask(bits) == 0 }

// DisableIP marks the routes through dev dead and flushes them: on
// NETDEV_DOWN the device's routes except its local ones, on
// NETDEV_UNREGISTER or when the last address goes (force) all of them. The
// caller holds RTNL.
//
// Kernel: fib_disable_ip (net/ipv4/fib_frontend.c).
func (f *FIB) DisableIP(t *sim.Task, dev *netdev.Device, ev netdev.Event, force bool) {
	defer t.Frame("fib_disable_ip")()
	if f.syncDownDev(dev, ev, force) > 0 {
		f.flush(t)
	}
	f.charge(t)
}

// InetAddrEvent handles an IPv4 address being added (EventUp) or removed
// (EventDown); it has the type of netdev.AddrEventHandler. Removing the last
// address of a device disables IP on it. IPv6 addresses are ignored.
//
// Kernel: fib_inetaddr_event (net/ipv4/fib_frontend.c).
func (f *FIB) InetAddrEvent(t *sim.Task, ev netdev.Event, dev *netdev.Device, a netdev.Addr) {
	defer t.Frame("fib_inetaddr_event")()
	if !a.Prefix.Addr().Is4() {
		return
	}
	switch ev {
	case netdev.EventUp:
		f.addIfAddr(t, dev, a)
		f.syncUp(dev, FlagDead)
	case netdev.EventDown:
		f.delIfAddr(t, dev, a)
		if len(dev.Inet4Addrs()) == 0 {
			if f.syncDownDev(dev, netdev.EventDown, true) > 0 {
				f.flush(t)
			}
		}
	}
	f.charge(t)
}

// NetdevEvent handles the netdev notifier events that concern the FIB; it
// implements netdev.Notifier. NETDEV_UP adds the routes of the device's
// addresses and revives its nexthops, NETDEV_DOWN disables IP on it,
// NETDEV_CHANGE marks its nexthops link-down or up with the carrier,
// NETDEV_UNREGISTER removes all its routes.
//
// Kernel: fib_netdev_event (net/ipv4/fib_frontend.c).
func (f *FIB) NetdevEvent(t *sim.Task, ev netdev.Event, dev *netdev.Device) error {
	defer t.Frame("fib_netdev_event")()
	switch ev {
	case netdev.EventUnregister:
		if f.syncDownDev(dev, ev, true) > 0 {
			f.flush(t)
		}
	case netdev.EventUp:
		for _, a := range dev.Inet4Addrs() {
			f.addIfAddr(t, dev, a)
		}
		f.syncUp(dev, FlagDead)
	case netdev.EventDown:
		if f.syncDownDev(dev, ev, false) > 0 {
			f.flush(t)
		}
	case netdev.EventChange:
		if dev.Flags()&netdev.FlagLowerUp != 0 {
			f.syncUp(dev, FlagLinkDown)
		} else {
			f.syncDownDev(dev, ev, false)
		}
	}
	f.charge(t)
	return nil
}
