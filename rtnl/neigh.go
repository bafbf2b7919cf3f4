// Neighbour requests: RTM_NEWNEIGH, RTM_DELNEIGH and RTM_GETNEIGH (doit
// and dump) on the kernel's two neighbour tables, and the tables' device
// events (neigh_add, neigh_delete, neigh_get, neigh_dump_info in
// net/core/neighbour.c; arp_netdev_event, fib_disable_ip's arp_ifdown in
// net/ipv4/arp.c and fib_frontend.c; ndisc_netdev_event in
// net/ipv6/ndisc.c, rt6_disable_ip in net/ipv6/route.c).

package rtnl

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// neighTable returns the table of family, or nil (neigh_find_table).
func (k *Kernel) neighTable(f rt.Family) *neigh.Table {
	switch f {
	case rt.FamilyInet:
		return k.arp
	case rt.FamilyInet6:
		return k.nd
	}
	return nil
}

// NeighTable returns the kernel's neighbour table of family
// (rt.FamilyInet: arp_tbl, rt.FamilyInet6: nd_tbl), shared by every
// namespace, or nil for another family, for inspection (sizes, counters).
func (k *Kernel) NeighTable(f rt.Family) *neigh.Table { return k.neighTable(f) }

// NeighRequest is the body of an RTM_NEWNEIGH or RTM_DELNEIGH: an ndmsg
// and its attributes, as the message carries them.
type NeighRequest struct {
	Origin
	// Flags are an RTM_NEWNEIGH's NLM_F_* flags: rt.NLMCreate makes a
	// missing entry, rt.NLMExcl refuses an existing one, rt.NLMReplace
	// lets the request override its link-layer address and router flag.
	Flags  rt.NLMFlags
	Family rt.Family      // ndm_family
	Index  netdev.IfIndex // ndm_ifindex; 0 for none
	// Link names the device when Index is 0 (a Go caller's or ip's
	// request); "" with Index 0 is no device.
	Link  string
	State neigh.State // ndm_state
	// NTF are ndm_flags with NDA_FLAGS_EXT's above them (neigh.Flags).
	NTF neigh.Flags
	// Dst is NDA_DST as sent (nil: absent); it must be at least the
	// table's address length, of which the kernel reads that many bytes.
	Dst []byte
	// LLAddr is NDA_LLADDR as sent (nil: absent).
	LLAddr   []byte
	Protocol uint8 // NDA_PROTOCOL, 0 for absent
}

// neighDst checks req's family and destination: the table, then the
// address it names (EAFNOSUPPORT, "Invalid network address").
func (k *Kernel) neighDst(family rt.Family, dst []byte) (*neigh.Table, netip.Addr, error) {
	tbl := k.neighTable(family)
	if tbl == nil {
		return nil, netip.Addr{}, errno.New(syscall.EAFNOSUPPORT, "")
	}
	if len(dst) < tbl.KeyLen() {
		return nil, netip.Addr{}, errno.New(syscall.EINVAL, "Invalid network address")
	}
	a, _ := netip.AddrFromSlice(dst[:tbl.KeyLen()])
	return tbl, a, nil
}

// neighDev is the device a neighbour request names, or nil for none.
func neighDev(tb *netdev.Table, index netdev.IfIndex, name string) (*netdev.Device, error) {
	if index == 0 && name == "" {
		return nil, nil
	}
	return tb.Find(index, name)
}

// NewNeigh adds or changes a neighbour (or, with neigh.FlagProxy, a proxy
// entry) as RTM_NEWNEIGH does: a missing entry is made only with
// rt.NLMCreate (else ENOENT), an existing one is refused with rt.NLMExcl
// (EEXIST) and without rt.NLMReplace keeps its link-layer address and
// router flag; then the entry takes the request's state, address and
// flags by an administrative update, which a NUD_PERMANENT entry, as any,
// accepts. As in the kernel, an entry the request made stays (in
// NUD_NONE) when that update fails. Its RTM_NEWNEIGH carries the
// request's port id.
//
// Kernel: neigh_add, __neigh_update (net/core/neighbour.c).
func (h *Handle) NewNeigh(r NeighRequest) error {
	return h.doFrom(r.Origin, "RTM_NEWNEIGH", func(t *sim.Task, tb *netdev.Table) error {
		k := h.n.k
		if r.Dst == nil {
			return errno.New(syscall.EINVAL, "Network address not specified")
		}
		dev, err := neighDev(tb, r.Index, r.Link)
		if err != nil {
			return err
		}
		if dev != nil && r.LLAddr != nil && len(r.LLAddr) < len(netdev.MAC{}) {
			return errno.New(syscall.EINVAL, "Invalid link address")
		}
		tbl, dst, err := k.neighDst(r.Family, r.Dst)
		if err != nil {
			return err
		}
		if r.NTF&neigh.FlagProxy != 0 {
			if r.NTF&neigh.FlagManaged != 0 {
				return errno.New(syscall.EINVAL, "Invalid NTF_* flag combination")
			}
			p := tbl.ProxyCreate(t, tb, dst, dev)
			p.Flags = r.NTF
			p.Permanent = r.State&neigh.StatePermanent != 0
			if r.Protocol != 0 {
				p.Protocol = r.Protocol
			}
			return nil
		}
		if dev == nil {
			return errno.New(syscall.EINVAL, "Device not specified")
		}
		if tbl.Family() == rt.FamilyInet6 {
			if c, ok := dev.IPv6Conf(); !ok || c.DisableIPv6 {
				return errno.New(syscall.EINVAL, "IPv6 is disabled on this device")
			}
		}
		flags := neigh.UpdateAdmin | neigh.UpdateOverride | neigh.UpdateOverrideIsRouter
		e := tbl.Lookup(t, dst, dev)
		if e == nil {
			perm := r.State&neigh.StatePermanent != 0
			if r.Flags&rt.NLMCreate == 0 {
				return errno.New(syscall.ENOENT, "")
			}
			if perm && r.NTF&neigh.FlagManaged != 0 {
				return errno.New(syscall.EINVAL, "Invalid NTF_* flag for permanent entry")
			}
			exempt := perm || r.NTF&neigh.FlagExtLearned != 0
			if e, err = tbl.Create(t, dst, dev, h.n.neighType(t, dev, dst), r.NTF, exempt); err != nil {
				return err
			}
		} else {
			if r.Flags&rt.NLMExcl != 0 {
				return errno.New(syscall.EEXIST, "")
			}
			if r.Flags&rt.NLMReplace == 0 {
				flags &^= neigh.UpdateOverride | neigh.UpdateOverrideIsRouter
			}
		}
		if r.Protocol != 0 {
			e.Protocol = r.Protocol
		}
		if r.NTF&neigh.FlagExtLearned != 0 {
			flags |= neigh.UpdateExtLearned
		}
		if r.NTF&neigh.FlagRouter != 0 {
			flags |= neigh.UpdateIsRouter
		}
		if r.NTF&neigh.FlagManaged != 0 {
			flags |= neigh.UpdateManaged
		}
		if r.NTF&neigh.FlagUse != 0 {
			flags |= neigh.UpdateUse
		}
		var ll netdev.MAC
		copy(ll[:], r.LLAddr)
		if err := tbl.Update(t, e, ll, r.LLAddr != nil, r.State, flags); err != nil {
			return err
		}
		if r.NTF&(neigh.FlagUse|neigh.FlagManaged) != 0 {
			tbl.EventSend(t, e, true) // neigh_event_send
		}
		return nil
	})
}

// DelNeigh deletes a neighbour (or, with neigh.FlagProxy, a proxy entry)
// as RTM_DELNEIGH does: the entry is first updated to NUD_FAILED (an
// RTM_NEWNEIGH when it was valid), then removed (RTM_DELNEIGH).
//
// Kernel: neigh_delete (net/core/neighbour.c).
func (h *Handle) DelNeigh(r NeighRequest) error {
	return h.doFrom(r.Origin, "RTM_DELNEIGH", func(t *sim.Task, tb *netdev.Table) error {
		k := h.n.k
		if r.Dst == nil {
			return errno.New(syscall.EINVAL, "Network address not specified")
		}
		dev, err := neighDev(tb, r.Index, r.Link)
		if err != nil {
			return err
		}
		tbl, dst, err := k.neighDst(r.Family, r.Dst)
		if err != nil {
			return err
		}
		if r.NTF&neigh.FlagProxy != 0 {
			if !tbl.ProxyDelete(t, tb, dst, dev) {
				return errno.New(syscall.ENOENT, "")
			}
			return nil
		}
		if dev == nil {
			return errno.New(syscall.EINVAL, "")
		}
		e := tbl.Lookup(t, dst, dev)
		if e == nil {
			return errno.New(syscall.ENOENT, "")
		}
		err = tbl.Update(t, e, netdev.MAC{}, false, neigh.StateFailed, neigh.UpdateOverride|neigh.UpdateAdmin)
		tbl.Remove(t, e)
		return err
	})
}

// neighType is the type a new neighbour of addr on dev gets: for IPv6
// multicast or unicast (ndisc_constructor); for IPv4 what the namespace's
// local table says of the address through dev, and RTN_BROADCAST while
// there is no local table (no IPv4 address was ever configured), as
// Linux 6.18 types every IPv4 neighbour then.
//
// Kernel: arp_constructor → inet_addr_type_dev_table, __inet_dev_addr_type
// (net/ipv4/arp.c, fib_frontend.c).
func (n *Net) neighType(t *sim.Task, dev *netdev.Device, addr netip.Addr) rt.Type {
	switch {
	case addr.IsMulticast():
		return rt.TypeMulticast
	case addr.Is6():
		return rt.TypeUnicast
	case addr.As4()[0] == 0 || addr == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return rt.TypeBroadcast // ipv4_is_zeronet, ipv4_is_lbcast
	}
	local := n.fib.Table(fib.TableLocal)
	if local == nil {
		return rt.TypeBroadcast
	}
	if res, err := local.Lookup(t, fib.Flow{Dst: addr}); err == nil && res.Dev == dev {
		return res.Type
	}
	return rt.TypeUnicast
}

// NeighInfo is one neighbour or proxy entry as a message of the kernel
// reports it (neigh_fill_info, pneigh_fill_info).
type NeighInfo struct {
	Family rt.Family
	Index  netdev.IfIndex // ndm_ifindex; 0 for a proxy entry of every device
	Link   string         // the device's name, "" with Index 0
	Type   rt.Type        // ndm_type (RTN_UNICAST, RTN_MULTICAST)
	State  neigh.State
	// NTF are the entry's flags, neigh.FlagProxy for a proxy entry.
	NTF      neigh.Flags
	Dst      netip.Addr
	LLAddr   netdev.MAC
	HasLL    bool // NDA_LLADDR is reported (a valid state)
	Protocol uint8
	// Cache is NDA_CACHEINFO and Probes NDA_PROBES; a proxy entry has
	// neither.
	Cache  NeighCacheInfo
	Probes uint32
}

// NeighCacheInfo is struct nda_cacheinfo: how long ago the entry was used,
// confirmed and updated, in clock ticks (USER_HZ, 100 a second), and its
// references beyond the table's.
type NeighCacheInfo struct {
	Confirmed, Used, Updated uint32
	Refcnt                   uint32
}

// clockTicks is jiffies_to_clock_t of a duration: USER_HZ ticks.
func clockTicks(t, since sim.Time) uint32 {
	d := t.Sub(since)
	if d < 0 {
		d = 0
	}
	return uint32(d.Milliseconds() / 10)
}

// neighInfo is neigh_fill_info of e at now.
func neighInfo(e *neigh.Entry, fam rt.Family, now sim.Time) NeighInfo {
	ni := NeighInfo{
		Family: fam, Index: e.Dev.Index(), Link: e.Dev.Name(), Type: e.Type,
		State: e.State, NTF: e.Flags, Dst: e.Addr, Protocol: e.Protocol, Probes: e.Probes,
		Cache: NeighCacheInfo{
			Used: clockTicks(now, e.Used), Confirmed: clockTicks(now, e.Confirmed),
			Updated: clockTicks(now, e.Updated), Refcnt: e.Refcnt(),
		},
	}
	if e.State&neigh.StateValid != 0 {
		ni.LLAddr, ni.HasLL = e.LLAddr, true
	}
	return ni
}

// proxyInfo is pneigh_fill_info of p.
func proxyInfo(p *neigh.Proxy, fam rt.Family) NeighInfo {
	ni := NeighInfo{Family: fam, Type: rt.TypeUnicast, NTF: p.Flags | neigh.FlagProxy, Dst: p.Addr, Protocol: p.Protocol}
	if p.Dev != nil {
		ni.Index, ni.Link = p.Dev.Index(), p.Dev.Name()
	}
	return ni
}

// neighAnnouncer sends the tables' notifications to the namespace of the
// entry's device.
type neighAnnouncer struct {
	k   *Kernel
	fam rt.Family
}

// NeighMsg is __neigh_notify: an RTM_NEWNEIGH of a request's update
// carries its port id (neigh_update_notify's nlmsg_pid), never its
// sequence number; an RTM_DELNEIGH carries neither.
func (a neighAnnouncer) NeighMsg(t *sim.Task, e *neigh.Entry, del, req bool) {
	n := a.k.byTable[e.Dev.Table()]
	if n == nil || !n.notifyNeeded() {
		return
	}
	ni := neighInfo(e, a.fam, t.Now())
	m := Notification{Type: rt.RTMNewNeigh, Family: a.fam, Neigh: &ni}
	if del {
		m.Type = rt.RTMDelNeigh
	} else if req {
		m.Origin = Origin{PortID: n.cur.PortID}
	}
	n.send(m)
}

// neighNetdevEvent flushes the tables as a device event asks: an address
// change flushes its neighbours (neigh_changeaddr), a carrier loss those
// not permanent and its proxy entries not permanent (neigh_carrier_down),
// going down or away all of them (neigh_ifdown: arp_ifdown from
// fib_disable_ip; ndisc_netdev_event's NETDEV_DOWN and rt6_disable_ip).
func (k *Kernel) neighNetdevEvent(t *sim.Task, ev netdev.Event, d *netdev.Device) {
	for _, tbl := range []*neigh.Table{k.arp, k.nd} {
		switch ev {
		case netdev.EventChangeAddr:
			tbl.Flush(t, d, false, false)
		case netdev.EventChange:
			if !d.CarrierOK() {
				tbl.Flush(t, d, true, true)
			}
		case netdev.EventDown, netdev.EventUnregister:
			tbl.Flush(t, d, false, true)
		}
	}
}

// neighInetAddrEvent is fib_inetaddr_event's fib_disable_ip → arp_ifdown
// when a device's last IPv4 address goes.
func (k *Kernel) neighInetAddrEvent(t *sim.Task, ev netdev.Event, d *netdev.Device, a netdev.Addr) {
	if ev == netdev.EventDown && a.Prefix.Addr().Is4() && len(d.Inet4Addrs()) == 0 {
		k.arp.Flush(t, d, false, true)
	}
}
