// Multicast memberships: what `ip maddr` reads from /proc and changes by
// ioctl. Kernel: dev_mc_seq_show (net/core/dev_addr_lists.c),
// igmp_mc_seq_show (net/ipv4/igmp.c), igmp6_mc_seq_show
// (net/ipv6/mcast.c), dev_ioctl SIOCADDMULTI / SIOCDELMULTI
// (net/core/dev_ioctl.c).

package rtnl

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// MaddrInfo is one device's multicast memberships, as `ip maddr show`
// prints them.
type MaddrInfo struct {
	Index netdev.IfIndex
	Name  string
	Link  []hwaddr.Entry // the device's mc list (/proc/net/dev_mcast)
	Inet4 []netdev.Group // IPv4 groups, newest first (/proc/net/igmp)
	Inet6 []netdev.Group // IPv6 groups, newest first (/proc/net/igmp6)
}

// MaddrList returns every device's multicast memberships in device order.
//
// Kernel: dev_mc_seq_show (net/core/dev_addr_lists.c), igmp_mc_seq_show
// (net/ipv4/igmp.c), igmp6_mc_seq_show (net/ipv6/mcast.c).
func (h *Handle) MaddrList() ([]MaddrInfo, error) {
	var out []MaddrInfo
	err := h.do("maddr", func(t *sim.Task, tb *netdev.Table) error {
		for _, d := range tb.Devices() {
			out = append(out, MaddrInfo{Index: d.Index(), Name: d.Name(), Link: d.MC().Entries(),
				Inet4: d.Inet4GroupList(), Inet6: d.Inet6GroupList()})
		}
		return nil
	})
	return out, err
}

// MaddrAdd adds the global reference to multicast hardware address a on
// device name, as `ip maddr add` does through an ioctl (ENODEV for no such
// device).
//
// Kernel: dev_ioctl SIOCADDMULTI (net/core/dev_ioctl.c).
func (h *Handle) MaddrAdd(name string, a netdev.MAC) error {
	return h.maddrIoctl("SIOCADDMULTI", name, a, (*netdev.Device).MCAddUser)
}

// MaddrDel drops the global reference MaddrAdd took (ENOENT if none).
//
// Kernel: dev_ioctl SIOCDELMULTI (net/core/dev_ioctl.c).
func (h *Handle) MaddrDel(name string, a netdev.MAC) error {
	return h.maddrIoctl("SIOCDELMULTI", name, a, (*netdev.Device).MCDelUser)
}

// maddrIoctl runs op on device name (ENODEV for no such device).
//
// Kernel: dev_ifsioc's __dev_get_by_name lookup (net/core/dev_ioctl.c).
func (h *Handle) maddrIoctl(op, name string, a netdev.MAC, fn func(*netdev.Device, *sim.Task, netdev.MAC) error) error {
	return h.do(op, func(t *sim.Task, tb *netdev.Table) error {
		d := tb.ByName(name)
		if d == nil {
			return errno.New(syscall.ENODEV, "")
		}
		return fn(d, t, a)
	})
}
