package netdev

import (
	"net/netip"
	"strings"
	"time"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Scope is an address scope as rtnetlink reports it (enum rt_scope_t).
type Scope = rt.Scope

// The scopes.
const (
	ScopeUniverse = rt.ScopeUniverse // RT_SCOPE_UNIVERSE, shown as "global"
	ScopeSite     = rt.ScopeSite     // RT_SCOPE_SITE
	ScopeLink     = rt.ScopeLink     // RT_SCOPE_LINK
	ScopeHost     = rt.ScopeHost     // RT_SCOPE_HOST
	ScopeNowhere  = rt.ScopeNowhere  // RT_SCOPE_NOWHERE (routes only)
)

// AddrFlags are IFA_F_* address flags.
type AddrFlags uint32

const (
	AddrSecondary AddrFlags = 0x01 // IFA_F_SECONDARY (IPv4)
	AddrNoDAD     AddrFlags = 0x02 // IFA_F_NODAD (IPv6)
	AddrTentative AddrFlags = 0x40 // IFA_F_TENTATIVE (IPv6, until DAD completes)
	AddrPermanent AddrFlags = 0x80 // IFA_F_PERMANENT (IPv6: configured, not autoconfigured with a lifetime)
)

// String lists the flags as `ip addr` prints them ("secondary", "tentative", "nodad").
func (f AddrFlags) String() string {
	var p []string
	if f&AddrSecondary != 0 {
		p = append(p, "secondary")
	}
	if f&AddrTentative != 0 {
		p = append(p, "tentative")
	}
	if f&AddrNoDAD != 0 {
		p = append(p, "nodad")
	}
	return strings.Join(p, " ")
}

// Addr is an IPv4 or IPv6 interface address as `ip addr` lists it. The zero
// Addr is not a valid address.
type Addr struct {
	Prefix    netip.Prefix // local address and prefix length, e.g. 198.51.100.1/24
	Broadcast netip.Addr   // IPv4 broadcast (zero if none was given)
	Label     string       // IPv4 label (defaults to the device name)
	Scope     Scope
	Flags     AddrFlags
}

// AddrEventHandler receives address additions (EventUp, "NETDEV_UP" on the
// inetaddr/inet6addr chains) and removals (EventDown). The FIB subscribes to
// these to add and remove local, broadcast and prefix routes.
type AddrEventHandler func(t *sim.Task, ev Event, dev *Device, a Addr)

// RegisterAddrNotifier appends h to the inetaddr and inet6addr notifier
// chains. Call it while setting up.
//
// Kernel: register_inetaddr_notifier (net/ipv4/devinet.c),
// register_inet6addr_notifier (net/ipv6/addrconf_core.c).
func (s *Stack) RegisterAddrNotifier(h AddrEventHandler) {
	s.addrNotifiers = append(s.addrNotifiers, h)
}

func (s *Stack) addrNotify(t *sim.Task, ev Event, d *Device, a Addr) {
	for _, h := range s.addrNotifiers {
		h(t, ev, d, a)
	}
}

// WorkQueue runs deferred kernel work (workqueue items such as IPv6 DAD)
// in a kernel worker that takes RTNL itself. Package rtnl provides the
// implementation that schedules a kworker task; InlineWork runs work at once.
type WorkQueue interface {
	// Queue schedules fn to run after delay, in a kworker, with RTNL held.
	Queue(t *sim.Task, delay time.Duration, name string, fn func(kw *sim.Task))
}

// InlineWork is a WorkQueue that runs work at once in the calling task,
// ignoring the delay. The caller already holds RTNL. It suits tests of this
// package and quiescent single-task use.
type InlineWork struct{}

// Queue runs fn in t.
func (InlineWork) Queue(t *sim.Task, _ time.Duration, _ string, fn func(*sim.Task)) { fn(t) }

// SetWorkQueue sets where deferred work runs (InlineWork by default).
func (s *Stack) SetWorkQueue(q WorkQueue) { s.wq = q }
