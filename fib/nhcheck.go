// The checks of an IPv4 route's own nexthop (net/ipv4/fib_semantics.c):
// fib_check_nh with its IPv4-gateway, IPv6-gateway and device-only forms
// (fib_check_nh_v4_gw; fib_check_nh_v6_gw, which asks the IPv6 FIB through
// IPv6Stub as the kernel does through ipv6_stub; fib_check_nh_nongw), and
// the gateway check of nexthop objects that uses them (nh_create_ipv4,
// net/ipv4/nexthop.c).

package fib

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// checkNH is fib_check_nh for a classic nexthop: resolve its device and
// scope, or refuse it.
func (f *FIB) checkNH(t *sim.Task, nh *fibNH, table uint32, scope Scope) error {
	switch {
	case nh.gw.Is4():
		return f.checkNHv4GW(t, nh, table, scope)
	case nh.gw.IsValid():
		return f.checkNHv6GW(t, nh, table)
	}
	return checkNHNonGW(nh)
}

// IPv6Stub is what the IPv4 FIB asks of the namespace's IPv6 FIB, as the
// kernel's IPv4 code calls IPv6 through ipv6_stub (include/net/ipv6_stubs.h).
// fib does not import the IPv6 FIB; rtnl installs it with SetIPv6Stub.
type IPv6Stub interface {
	// NHInitGateway resolves an IPv6 gateway gw as fib6_nh_init does for
	// an IPv6 route through it: the gateway must not be a local address,
	// must be unicast and, unless it is link-local or onlink, reached by a
	// connected route — in table (the IPv4 route's table id, looked up as
	// an IPv6 table), else through the IPv6 rules — on dev if dev is not
	// nil. It returns the device the gateway is on (dev, or the one the
	// connected route gives), or the kernel's error with its extack.
	NHInitGateway(t *sim.Task, gw netip.Addr, dev *netdev.Device, table uint32, onlink bool) (*netdev.Device, error)
}

// SetIPv6Stub installs the IPv6 FIB that IPv4 routes through an IPv6
// gateway (RTA_VIA) are checked in. Without one such routes are refused
// with EAFNOSUPPORT, as on a kernel without IPv6.
func (f *FIB) SetIPv6Stub(s IPv6Stub) { f.ipv6 = s }

// checkNHv6GW is fib_check_nh_v6_gw: an IPv6 gateway is resolved in the IPv6
// FIB as an IPv6 route's would be (fib6_nh_init with the route's table and
// the nexthop's flags), which gives the nexthop its device; its scope is
// link.
func (f *FIB) checkNHv6GW(t *sim.Task, nh *fibNH, table uint32) error {
	if f.ipv6 == nil {
		// eafnosupport_fib6_nh_init (net/ipv6/addrconf_core.c).
		return errno.New(syscall.EAFNOSUPPORT, "IPv6 support not enabled in kernel")
	}
	dev, err := f.ipv6.NHInitGateway(t, nh.gw, nh.dev, table, nh.flags&FlagOnLink != 0)
	if err != nil {
		return err
	}
	nh.dev, nh.oif = dev, ifindex(dev)
	nh.scope = ScopeLink
	return nil
}

// checkNHNonGW is fib_check_nh_nongw: a device-only nexthop.
func checkNHNonGW(nh *fibNH) error {
	if nh.flags&(FlagPervasive|FlagOnLink) != 0 {
		return einval("Invalid flags for nexthop - PERVASIVE and ONLINK can not be set")
	}
	if nh.dev == nil || !nh.dev.Registered() {
		return errno.New(syscall.ENODEV, "")
	}
	if !nh.dev.IsUp() {
		return errno.New(syscall.ENETDOWN, "Device for nexthop is not up")
	}
	nh.scope = ScopeHost
	if !nh.dev.Carrier() {
		nh.flags |= FlagLinkDown
	}
	return nil
}

// checkNHv4GW is fib_check_nh_v4_gw: an IPv4 gateway must be on the link
// (onlink), or reachable through a route of narrower scope, typically the
// connected route of an address on the device.
func (f *FIB) checkNHv4GW(t *sim.Task, nh *fibNH, table uint32, scope Scope) error {
	if nh.flags&FlagOnLink != 0 {
		if scope >= ScopeLink {
			return einval("Nexthop has invalid scope")
		}
		dev := nh.dev
		if dev == nil || !dev.Registered() {
			return errno.New(syscall.ENODEV, "Nexthop device required for onlink")
		}
		if !dev.IsUp() {
			return errno.New(syscall.ENETDOWN, "Nexthop device is not up")
		}
		if f.addrType(t, nh.gw, TableLocal) != TypeUnicast {
			return einval("Nexthop has invalid gateway")
		}
		if !dev.Carrier() {
			nh.flags |= FlagLinkDown
		}
		nh.scope = ScopeLink
		return nil
	}
	fl := Flow{Dst: nh.gw, Scope: scope + 1, OIF: nh.oif, IIF: netdev.LoopbackIfIndex}
	if fl.Scope < ScopeLink {
		fl.Scope = ScopeLink
	}
	var res Result
	err := error(errAgain)
	if table != 0 && table != TableMain {
		if tb := f.Table(table); tb != nil {
			res, err = tb.lookup(t, fl)
		}
	}
	if err != nil {
		res, err = f.fibLookup(t, fl)
	}
	if err != nil {
		e := syscall.ENETUNREACH
		if ee, ok := err.(*errno.Error); ok {
			e = ee.Errno
		}
		return errno.New(e, "Nexthop has invalid gateway")
	}
	if res.Type != TypeUnicast && res.Type != TypeLocal {
		return einval("Nexthop has invalid gateway")
	}
	nh.scope = res.Scope
	nh.oif = ifindex(res.Dev)
	nh.dev = res.Dev
	if nh.dev == nil {
		return einval("No egress device for nexthop gateway")
	}
	if !nh.dev.Carrier() {
		nh.flags |= FlagLinkDown
	}
	if !nh.dev.IsUp() {
		return errno.New(syscall.ENETDOWN, "")
	}
	return nil
}

// CheckGateway validates a nexthop object's gateway and device the way
// nh_create_ipv4 does, with fib_check_nh in table main at scope universe;
// it has the type of nexthop.GatewayChecker. An IPv6 gateway is resolved
// in the IPv6 FIB (fib_check_nh_v6_gw). The caller holds RTNL.
//
// Kernel: nh_create_ipv4 (net/ipv4/nexthop.c), fib_check_nh
// (net/ipv4/fib_semantics.c).
func (f *FIB) CheckGateway(t *sim.Task, family rt.Family, gw netip.Addr, dev *netdev.Device, onlink bool) error {
	_, err := f.CheckGatewayScope(t, family, gw, dev, onlink)
	return err
}

// CheckGatewayScope is CheckGateway that also returns the scope the check
// gives the nexthop (nhc_scope): the scope of the route that reaches the
// gateway, so host for a local address; link for onlink and IPv6 gateways.
// It has the type of nexthop.GatewayScopeChecker.
func (f *FIB) CheckGatewayScope(t *sim.Task, family rt.Family, gw netip.Addr, dev *netdev.Device, onlink bool) (uint8, error) {
	nh := fibNH{dev: dev, oif: ifindex(dev), gw: gw, weight: 1, scope: ScopeLink}
	if onlink {
		nh.flags |= FlagOnLink
	}
	err := f.checkNH(t, &nh, TableMain, ScopeUniverse)
	f.charge(t)
	return uint8(nh.scope), err
}
