// Interface addresses as both families share them: the address value of
// RTM_NEWADDR and RTM_GETADDR (struct ifaddrmsg with its IFA_* attributes),
// IFA_F_* flags, scopes and origins, the inetaddr/inet6addr notifier chains
// the FIB listens on (register_inetaddr_notifier: net/ipv4/devinet.c;
// register_inet6addr_notifier: net/ipv6/addrconf_core.c), and the work
// queue addrconf defers work to.

package netdev

import (
	"net/netip"
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
	AddrSecondary      AddrFlags = 0x01  // IFA_F_SECONDARY (IPv4; IFA_F_TEMPORARY for IPv6)
	AddrNoDAD          AddrFlags = 0x02  // IFA_F_NODAD (IPv6)
	AddrOptimistic     AddrFlags = 0x04  // IFA_F_OPTIMISTIC (IPv6)
	AddrDADFailed      AddrFlags = 0x08  // IFA_F_DADFAILED (IPv6)
	AddrHomeAddress    AddrFlags = 0x10  // IFA_F_HOMEADDRESS (IPv6)
	AddrDeprecated     AddrFlags = 0x20  // IFA_F_DEPRECATED: the preferred lifetime is over
	AddrTentative      AddrFlags = 0x40  // IFA_F_TENTATIVE (IPv6, until DAD completes)
	AddrPermanent      AddrFlags = 0x80  // IFA_F_PERMANENT: an infinite valid lifetime ("dynamic" when clear)
	AddrManageTempAddr AddrFlags = 0x100 // IFA_F_MANAGETEMPADDR (IPv6)
	AddrNoPrefixRoute  AddrFlags = 0x200 // IFA_F_NOPREFIXROUTE: no prefix route for the address
	AddrMcAutoJoin     AddrFlags = 0x400 // IFA_F_MCAUTOJOIN
	AddrStablePrivacy  AddrFlags = 0x800 // IFA_F_STABLE_PRIVACY (IPv6)
)

// The address origins the kernel sets (IFA_PROTO).
const (
	AddrProtoKernelLo uint8 = 1 // IFAPROT_KERNEL_LO: loopback's ::1
	AddrProtoKernelLL uint8 = 3 // IFAPROT_KERNEL_LL: an IPv6 link-local address addrconf made
)

// Addr is an IPv4 or IPv6 interface address as `ip addr` lists it. The zero
// Addr is not a valid address.
//
// ValidLft and PreferredLft are lifetimes in seconds (LifetimeForever for
// none), as IFA_CACHEINFO carries them; both zero means none was given, so
// the address is permanent. A dump (rtnl's AddrList) reports the time left.
type Addr struct {
	Prefix    netip.Prefix // local address (IFA_LOCAL) and prefix length, e.g. 198.51.100.1/24
	Peer      netip.Addr   // the peer address (IFA_ADDRESS) of a point-to-point address; zero if none
	Broadcast netip.Addr   // IPv4 broadcast (zero if none was given)
	Label     string       // IPv4 label (defaults to the device name)
	Scope     Scope
	Flags     AddrFlags

	ValidLft     uint32 // seconds the address stays (LifetimeForever: no limit)
	PreferredLft uint32 // seconds the address stays preferred, then deprecated

	// Proto is who added the address (IFA_PROTO): 0 for a user's,
	// AddrProtoKernelLo for IPv6 loopback's ::1, AddrProtoKernelLL for an
	// IPv6 link-local address addrconf made.
	Proto uint8

	// Metric is the priority of the address's prefix route
	// (IFA_RT_PRIORITY, `ip addr add ... metric N`); 0 is none: 0 for an
	// IPv4 prefix route, 256 (IP6_RT_PRIO_ADDRCONF) for an IPv6 one.
	Metric uint32

	tstamp sim.Time // when the lifetimes were last set (ifa_tstamp)
	cstamp sim.Time // when the address was created (ifa_cstamp)
}

// Address is the address the prefix applies to (IFA_ADDRESS): the peer if
// there is one, else the local address.
func (a Addr) Address() netip.Addr {
	if a.Peer.IsValid() {
		return a.Peer
	}
	return a.Prefix.Addr()
}

// Subnet is the prefix the address brings (its prefix route's
// destination): Address masked to the prefix length.
func (a Addr) Subnet() netip.Prefix {
	return netip.PrefixFrom(a.Address(), a.Prefix.Bits()).Masked()
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

// AddrMetricHandler is told that IPv4 address a of dev (as it is, with its
// old metric) is being given metric newMetric by a replace, before the
// address changes: the FIB moves the address's prefix route.
type AddrMetricHandler func(t *sim.Task, dev *Device, a Addr, newMetric uint32)

// SetAddrMetricHandler installs h. Call it while setting up.
//
// Kernel: the fib_modify_prefix_route call of inet_rtm_newaddr
// (net/ipv4/devinet.c).
func (s *Stack) SetAddrMetricHandler(h AddrMetricHandler) { s.addrMetric = h }

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
