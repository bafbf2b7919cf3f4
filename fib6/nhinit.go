// nhinit.go follows how net/ipv6/route.c resolves and checks a route's own
// nexthop: fib6_nh_init with ip6_validate_gw, ip6_route_check_nh and
// ip6_route_check_nh_onlink, and the address checks they use
// (__ipv6_addr_type in net/ipv6/addrconf_core.c, __ipv6_chk_addr_and_flags
// in net/ipv6/addrconf.c).

package fib6

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Address types (ipv6_addr_type, IPV6_ADDR_*).
const (
	addrAny       = 0x0000
	addrUnicast   = 0x0001
	addrMulticast = 0x0002
	addrLoopback  = 0x0010
	addrLinkLocal = 0x0020
	addrSiteLocal = 0x0040
	addrCompatV4  = 0x0080
	addrMapped    = 0x1000
)

// addrType classifies an address as ipv6_addr_type does (without the
// scope bits).
//
// Kernel: __ipv6_addr_type (net/ipv6/addrconf_core.c).
func addrType(b [16]byte) int {
	switch {
	case b[0]&0xe0 != 0 && b[0]&0xe0 != 0xe0:
		return addrUnicast
	case b[0] == 0xff:
		return addrMulticast
	case b[0] == 0xfe && b[1]&0xc0 == 0x80:
		return addrLinkLocal | addrUnicast
	case b[0] == 0xfe && b[1]&0xc0 == 0xc0:
		return addrSiteLocal | addrUnicast
	case b[0]&0xfe == 0xfc:
		return addrUnicast
	}
	var zero8 [8]byte
	if [8]byte(b[:8]) == zero8 {
		if b[8]|b[9]|b[10]|b[11] == 0 {
			if b[12]|b[13]|b[14] == 0 {
				switch b[15] {
				case 0:
					return addrAny
				case 1:
					return addrLoopback | addrUnicast
				}
			}
			return addrCompatV4 | addrUnicast
		}
		if b[8]|b[9] == 0 && b[10] == 0xff && b[11] == 0xff {
			return addrMapped
		}
	}
	return addrUnicast
}

// needStrict is rt6_need_strict: destinations that need an interface.
func needStrict(b [16]byte) bool {
	return addrType(b)&(addrMulticast|addrLinkLocal|addrLoopback) != 0
}

// l3mdev returns dev's VRF (its L3 master), or nil.
func l3mdev(dev *netdev.Device) *netdev.Device {
	if dev == nil {
		return nil
	}
	if dev.VRFTable() != 0 {
		return dev
	}
	if m := dev.Master(); m != nil && m.VRFTable() != 0 {
		return m
	}
	return nil
}

// chkAddr reports whether a is an address of the namespace as
// ipv6_chk_addr_and_flags sees it: on dev, or — unless it is link- or
// host-scoped — on any device of dev's VRF; with skipDev (or no dev) on
// any device. Tentative addresses count only without bannedTentative.
//
// Kernel: __ipv6_chk_addr_and_flags (net/ipv6/addrconf.c).
func chkAddr(tbl *netdev.Table, a netip.Addr, dev *netdev.Device, skipDev, bannedTentative bool) bool {
	if tbl == nil || !a.IsValid() {
		return false
	}
	master := l3mdev(dev)
	if skipDev {
		dev = nil
	}
	for _, d := range tbl.Devices() {
		if l3mdev(d) != master {
			continue
		}
		for _, ifa := range d.Inet6Addrs() {
			if ifa.Prefix.Addr() != a {
				continue
			}
			fl := ifa.Flags
			if fl&netdev.AddrOptimistic != 0 {
				fl &^= netdev.AddrTentative
			}
			if bannedTentative && fl&netdev.AddrTentative != 0 {
				continue
			}
			if dev == nil || d == dev || ifa.Scope != netdev.ScopeLink && ifa.Scope != netdev.ScopeHost {
				return true
			}
		}
	}
	return false
}

// devTable returns the namespace's device table, known from any device.
func (f *FIB) devTable(devs ...*netdev.Device) *netdev.Table {
	for _, d := range devs {
		if d != nil {
			return d.Table()
		}
	}
	if f.rs.lo != nil {
		return f.rs.lo.Table()
	}
	return nil
}

// isReject is fib6_is_reject: reject routes, and routes through the
// loopback device to anything but a loopback, local or anycast address.
func isReject(flags uint32, dev *netdev.Device, dst [16]byte) bool {
	return flags&rtfReject != 0 ||
		dev != nil && dev.Flags()&netdev.FlagLoopback != 0 &&
			addrType(dst)&addrLoopback == 0 && flags&(rtfAnycast|rtfLocal) == 0
}

// nhInit is fib6_nh_init: resolve and check the route's own nexthop.
// On success the nexthop holds a reference to its device.
//
// Kernel: fib6_nh_init (net/ipv6/route.c).
func (f *FIB) nhInit(t *sim.Task, n *nh, cfg *config) error {
	dev := cfg.dev
	if dev != nil {
		if _, ok := dev.IPv6Conf(); !ok {
			return errno.New(syscall.ENODEV, "")
		}
	}
	if cfg.onlink {
		if dev == nil {
			return errno.New(syscall.ENODEV, "Nexthop device required for onlink")
		}
		if !dev.IsUp() {
			return errno.New(syscall.ENETDOWN, "Nexthop device is not up")
		}
		n.flags |= rt.FlagOnLink
	}
	n.weight = 1
	// Only an explicit reject route goes to loopback here; a route
	// through lo is checked as any other and made a reject route
	// afterwards (ip6_route_info_create_nh).
	if cfg.flags&rtfReject != 0 {
		dev = f.rs.lo
		if dev == nil {
			return errno.New(syscall.ENODEV, "")
		}
		if _, ok := dev.IPv6Conf(); !ok {
			return errno.New(syscall.ENODEV, "")
		}
		n.dev = dev
		dev.Hold()
		return nil
	}
	if cfg.flags&rtfGateway != 0 {
		var err error
		if dev, err = f.validateGW(t, cfg, dev); err != nil {
			return err
		}
		n.gw = cfg.gw.As16()
		n.hasGW = true
	}
	if dev == nil {
		return errno.New(syscall.ENODEV, "")
	}
	conf, ok := dev.IPv6Conf()
	if !ok {
		return errno.New(syscall.ENODEV, "")
	}
	if conf.DisableIPv6 {
		return errno.New(syscall.EACCES, "IPv6 is disabled on nexthop device")
	}
	if !dev.IsUp() && !cfg.ignoreDevDown {
		return errno.New(syscall.ENETDOWN, "Nexthop device is not up")
	}
	if cfg.flags&(rtfLocal|rtfAnycast) == 0 && !dev.Carrier() {
		n.flags |= rt.FlagLinkDown
	}
	n.dev = dev
	dev.Hold()
	return nil
}

// NHInitGateway resolves the IPv6 gateway of an IPv4 route's nexthop: the
// fib6_nh_init that fib_check_nh_v6_gw has check a struct fib6_config of
// the route's table, its device (nil for none), the gateway and RTF_GATEWAY
// with the nexthop's flags (onlink among them). It returns the gateway's
// device; the check keeps no reference to it. It fits fib.IPv6Stub. The
// caller holds RTNL.
//
// Kernel: fib_check_nh_v6_gw (net/ipv4/fib_semantics.c), fib6_nh_init,
// fib6_nh_release (net/ipv6/route.c).
func (f *FIB) NHInitGateway(t *sim.Task, gw netip.Addr, dev *netdev.Device, table uint32, onlink bool) (*netdev.Device, error) {
	cfg := &config{table: table, dev: dev, gw: gw, flags: rtfGateway, onlink: onlink}
	var n nh
	if err := f.nhInit(t, &n, cfg); err != nil {
		return nil, err
	}
	n.dev.Put()
	return n.dev, nil
}

// validateGW is ip6_validate_gw: the gateway must not be a local address,
// must be unicast, and — unless it is link-local — reachable through a
// connected route (or, onlink, not contradicted by one); the device is
// resolved from that route when the request names none.
//
// Kernel: ip6_validate_gw, ip6_route_check_nh, ip6_route_check_nh_onlink
// (net/ipv6/route.c).
func (f *FIB) validateGW(t *sim.Task, cfg *config, dev *netdev.Device) (*netdev.Device, error) {
	gw := cfg.gw
	gwType := addrType(gw.As16())
	skipDev := gwType&addrLinkLocal == 0
	needAddrCheck := dev == nil
	tbl := f.devTable(dev)
	if dev != nil && chkAddr(tbl, gw, dev, skipDev, false) {
		return nil, einval("Gateway can not be a local address")
	}
	if gwType != addrLinkLocal|addrUnicast {
		if gwType&(addrUnicast|addrMapped) == 0 {
			return nil, einval("Invalid gateway address")
		}
		var err error
		if cfg.onlink {
			err = f.checkNHOnlink(t, cfg, dev)
		} else {
			dev, err = f.checkNH(t, cfg, dev)
		}
		if err != nil {
			return nil, err
		}
	}
	if dev == nil {
		return nil, einval("Egress device not specified")
	}
	if dev.Flags()&netdev.FlagLoopback != 0 {
		return nil, einval("Egress device can not be loopback device for this route")
	}
	if needAddrCheck && chkAddr(f.devTable(dev), gw, dev, skipDev, false) {
		return nil, einval("Gateway can not be a local address")
	}
	return dev, nil
}

// nhLookupTable is ip6_nh_lookup_table: the gateway's route in table tbid.
func (f *FIB) nhLookupTable(t *sim.Task, cfg *config, tbid uint32, strict int) (result, bool) {
	tb := f.getTable(tbid)
	if tb == nil {
		return result{}, false
	}
	fl := flow6{daddr: cfg.gw.As16(), oif: ifindexOf(cfg.dev)}
	if cfg.prefsrc.IsValid() {
		fl.saddr = cfg.prefsrc.As16()
		strict |= lookupHasSaddr
	}
	strict |= lookupIgnoreLinkstate
	res := f.tableLookup(t, tb, fl.oif, &fl, strict)
	if res.f6i != f.nullEntry {
		f.selectPath(&res, &fl, fl.oif, fl.oif != 0, strict)
	}
	return res, true
}

// checkNHOnlink is ip6_route_check_nh_onlink.
func (f *FIB) checkNHOnlink(t *sim.Task, cfg *config, dev *netdev.Device) error {
	tbid := uint32(rt.TableMain)
	if m := l3mdev(dev); m != nil {
		tbid = m.VRFTable()
	}
	res, ok := f.nhLookupTable(t, cfg, tbid, 0)
	if !ok {
		return errno.New(syscall.EINVAL, "")
	}
	if res.flags&rtfReject == 0 && res.f6i.dst.addr != ([16]byte{}) &&
		(res.typ != rt.TypeUnicast || dev != res.dev) {
		return einval("Nexthop has invalid gateway or device mismatch")
	}
	return nil
}

// checkNH is ip6_route_check_nh: the gateway must be reached by a route
// without a gateway, in the route's table or else through the rules.
func (f *FIB) checkNH(t *sim.Task, cfg *config, dev *netdev.Device) (*netdev.Device, error) {
	unreach := errno.New(syscall.EHOSTUNREACH, "")
	found := false
	var res result
	if cfg.table != 0 {
		var ok bool
		res, ok = f.nhLookupTable(t, cfg, cfg.table, lookupIface)
		found = ok && res.flags&rtfReject == 0 && !res.hasGW && (dev == nil || dev == res.dev)
	}
	if !found && f.rs.rules != nil {
		// fib6_lookup through the custom rules: a rule's reject action,
		// or no route, leaves the gateway unreachable.
		r, err := f.rs.rules(t, Flow{Dst: cfg.gw, OIF: ifindexOf(cfg.dev)})
		if err != nil || r.Route.Type != rt.TypeUnicast || r.Gateway.IsValid() {
			return nil, unreach
		}
		if dev != nil && dev != r.Dev {
			return nil, unreach
		}
		return r.Dev, nil
	}
	if !found {
		fl := flow6{daddr: cfg.gw.As16(), oif: ifindexOf(cfg.dev)}
		res = f.lookupTables(t, &fl, lookupIface)
		if res.flags&rtfReject != 0 || res.hasGW {
			return nil, unreach
		}
		f.selectPath(&res, &fl, fl.oif, fl.oif != 0, lookupIface)
	}
	if dev != nil {
		if dev != res.dev {
			return nil, unreach
		}
		return dev, nil
	}
	return res.dev, nil
}

// lookupTables is fib6_lookup without custom rules: table local, then main.
//
// Kernel: fib6_lookup (net/ipv6/fib6_rules.c).
func (f *FIB) lookupTables(t *sim.Task, fl *flow6, strict int) result {
	res := f.tableLookup(t, f.local, fl.oif, fl, strict)
	if res.f6i == f.nullEntry {
		res = f.tableLookup(t, f.main, fl.oif, fl, strict)
	}
	return res
}

func ifindexOf(d *netdev.Device) netdev.IfIndex {
	if d == nil {
		return 0
	}
	return d.Index()
}
