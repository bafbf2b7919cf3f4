// Dumps that resume from a cursor, one part at a time, as a netlink dump's
// dumpit does between the reader's reads (netlink_dump,
// net/netlink/af_netlink.c): each part takes RTNL, walks on from where the
// last one stopped, and keeps keys and positions, not the objects, in
// between.

package rtnl

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// dumpGens are a namespace's generation counters that the dumps of links
// and addresses check between their parts (cb->seq). Guarded by RTNL.
type dumpGens struct {
	devBase uint32 // net->dev_base_seq: devices listed and unlisted
	addr4   uint32 // net->ipv4.dev_addr_genid: IPv4 addresses added and removed
	addr6   uint32 // net->ipv6.dev_addr_genid: IPv6 address messages
}

// devListed counts a device registered in or unregistered from the
// namespace.
//
// Kernel: dev_base_seq_inc in list_netdevice and unlist_netdevice
// (net/core/dev.c).
func (g *dumpGens) devListed() { g.devBase++ }

// baseSeq is a generation that is never 0: 0 turns the check off
// (nl_dump_check_consistent), so a sum that wraps to it is taken far away.
//
// Kernel: inet_base_seq (net/ipv4/devinet.c), inet6_base_seq
// (net/ipv6/addrconf.c).
func baseSeq(a, b uint32) uint32 {
	if s := a + b; s != 0 {
		return s
	}
	return 0x80000000
}

// DumpSeq is what a dump part reports beside its objects: the generation
// the dumpit read (cb->seq), which a front end compares between parts to
// flag an interrupted dump (NLM_F_DUMP_INTR), and whether the dump is done.
type DumpSeq struct {
	Seq  uint32
	Done bool
}

// LinkDump is one part of a link dump: with RTNL held, it calls fn for the
// devices whose ifindex is at least *from, in ifindex order, until fn
// returns false, and leaves *from at the ifindex of the device fn refused.
// The part's Seq is the namespace's dev_base_seq.
//
// Kernel: rtnl_dump_ifinfo (net/core/rtnetlink.c), for_each_netdev_dump
// from ctx->ifindex.
func (h *Handle) LinkDump(from *netdev.IfIndex, fn func(*LinkInfo) bool) (DumpSeq, error) {
	var ds DumpSeq
	err := h.do("RTM_GETLINK", func(t *sim.Task, tb *netdev.Table) error {
		ds = DumpSeq{Seq: h.n.gens.devBase, Done: true}
		for _, d := range tb.Devices() {
			if d.Index() < *from {
				continue
			}
			li := linkInfo(d)
			if !fn(&li) {
				*from, ds.Done = d.Index(), false
				return nil
			}
		}
		return nil
	})
	return ds, err
}

// AddrCursor is where an address dump of one family stopped: the device
// (ctx->ifindex) and the position in its address list (ctx->ip_idx), as
// the kernel keeps them; an address added or removed before the position
// shifts the rest, and the dump's Seq tells.
type AddrCursor struct {
	Index netdev.IfIndex
	Pos   int
}

// AddrDump is one part of an address dump of family (FamilyV4 or
// FamilyV6), of the device with ifindex index (0: every device): with
// RTNL held, it calls fn for the addresses from the cursor on, device by
// device in ifindex order, until fn returns false, and leaves the cursor at
// the address fn refused. The part's Seq is the kernel's inet_base_seq or
// inet6_base_seq.
//
// Kernel: inet_dump_ifaddr, in_dev_dump_addr (net/ipv4/devinet.c);
// inet6_dump_addr, in6_dump_addrs (net/ipv6/addrconf.c).
func (h *Handle) AddrDump(family int, index netdev.IfIndex, c *AddrCursor, fn func(*AddrInfo) bool) (DumpSeq, error) {
	if family != FamilyV4 && family != FamilyV6 {
		return DumpSeq{}, errno.Errorf(syscall.EAFNOSUPPORT, "Unknown address family %d", family)
	}
	var ds DumpSeq
	err := h.do("RTM_GETADDR", func(t *sim.Task, tb *netdev.Table) error {
		g := &h.n.gens
		if family == FamilyV4 {
			ds.Seq = baseSeq(g.addr4, g.devBase)
		} else {
			ds.Seq = baseSeq(g.addr6, g.devBase)
		}
		devs := tb.Devices()
		if index != 0 {
			d := tb.ByIndex(index)
			if d == nil {
				return errno.New(syscall.ENODEV, "")
			}
			devs = []*netdev.Device{d}
		}
		for _, d := range devs {
			if d.Index() < c.Index {
				continue
			}
			if d.Index() > c.Index {
				c.Index, c.Pos = d.Index(), 0
			}
			stopped := false
			d.AddrsFrom(family == FamilyV6, c.Pos, func(pos int, a netdev.Addr) bool {
				a.ValidLft, a.PreferredLft = a.Remaining(t.Now())
				if !fn(&AddrInfo{Index: d.Index(), Link: d.Name(), Addr: a}) {
					c.Pos, stopped = pos, true
					return false
				}
				return true
			})
			if stopped {
				return nil
			}
		}
		ds.Done = true
		return nil
	})
	return ds, err
}

// ReadAll reads a dump whole, in one part (nothing is refused), as the
// list conveniences and ip, which reads a dump to its end before it
// prints, do: the dump's objects, or the error that refused it (err, from
// the call that started it) or ended it.
func ReadAll[T any, D interface {
	Next(func(*T) bool) (bool, error)
	Close()
}](d D, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var out []T
	_, err = d.Next(func(x *T) bool {
		out = append(out, *x)
		return true
	})
	return out, err
}
