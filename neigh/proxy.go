// Proxy entries (struct pneigh_entry): the addresses a device answers
// ARP or neighbour solicitations for (`ip neigh add proxy`), kept apart
// from the neighbours in sixteen hash buckets, as net/core/neighbour.c's
// pneigh_lookup, pneigh_delete, pneigh_ifdown_and_unlock and
// pneigh_dump_table keep them.

package neigh

import (
	"encoding/binary"
	"net/netip"
	"slices"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// pneighHashMask is PNEIGH_HASHMASK: sixteen buckets.
const pneighHashMask = 0xf

// Proxy is one proxy entry. Dev is nil for an entry of every device of
// its namespace, Net its namespace's device table.
type Proxy struct {
	Net       *netdev.Table
	Dev       *netdev.Device
	Addr      netip.Addr
	Flags     Flags // the request's ndm_flags (NTF_ROUTER, ...)
	Protocol  uint8
	Permanent bool
}

// pneighHash is the bucket of addr: the last four bytes of the key, read
// as the kernel reads them on a little-endian machine, folded.
//
// Kernel: pneigh_hash (net/core/neighbour.c).
func pneighHash(addr netip.Addr) int {
	b := addr.AsSlice()
	h := binary.LittleEndian.Uint32(b[len(b)-4:])
	h ^= h >> 16
	h ^= h >> 8
	h ^= h >> 4
	return int(h & pneighHashMask)
}

// proxyBuckets are the sixteen buckets; each lists its entries newest
// first, as the kernel pushes at a bucket's head.
type proxyBuckets [pneighHashMask + 1][]*Proxy

// ProxyLookup returns the proxy entry of addr in net for dev: one of dev
// or one of every device (nil Dev). A nil dev finds only the latter.
//
// Kernel: __pneigh_lookup_1, pneigh_lookup (net/core/neighbour.c).
func (tb *Table) ProxyLookup(t *sim.Task, net *netdev.Table, addr netip.Addr, dev *netdev.Device) *Proxy {
	b := tb.pbuckets()[pneighHash(addr)]
	t.Charge(sim.NeighVisit, int64(len(b)))
	for _, p := range b {
		if p.Addr == addr && p.Net == net && (p.Dev == dev || p.Dev == nil) {
			return p
		}
	}
	return nil
}

func (tb *Table) pbuckets() *proxyBuckets {
	if tb.proxyB == nil {
		tb.proxyB = &proxyBuckets{}
	}
	return tb.proxyB
}

// ProxyCreate returns the proxy entry ProxyLookup finds, or a new one of
// addr on dev (nil: every device) in net.
//
// Kernel: pneigh_create (net/core/neighbour.c).
func (tb *Table) ProxyCreate(t *sim.Task, net *netdev.Table, addr netip.Addr, dev *netdev.Device) *Proxy {
	if p := tb.ProxyLookup(t, net, addr, dev); p != nil {
		return p
	}
	t.Charge(sim.NeighAdd, 1)
	p := &Proxy{Net: net, Dev: dev, Addr: addr}
	b := &tb.pbuckets()[pneighHash(addr)]
	*b = slices.Insert(*b, 0, p)
	return p
}

// ProxyDelete removes the proxy entry of addr in net whose device is dev
// exactly; it reports whether there was one.
//
// Kernel: pneigh_delete (net/core/neighbour.c).
func (tb *Table) ProxyDelete(t *sim.Task, net *netdev.Table, addr netip.Addr, dev *netdev.Device) bool {
	b := &tb.pbuckets()[pneighHash(addr)]
	t.Charge(sim.NeighVisit, int64(len(*b)))
	for i, p := range *b {
		if p.Addr == addr && p.Net == net && p.Dev == dev {
			*b = slices.Delete(*b, i, i+1)
			t.Charge(sim.NeighRemove, 1)
			return true
		}
	}
	return false
}

// proxyFlush removes dev's proxy entries (with skipPerm, the ones not
// permanent), or with a nil dev every proxy entry of net.
//
// Kernel: pneigh_ifdown_and_unlock (net/core/neighbour.c).
func (tb *Table) proxyFlush(t *sim.Task, dev *netdev.Device, skipPerm bool) {
	for i := range tb.pbuckets() {
		b := &tb.proxyB[i]
		t.Charge(sim.NeighVisit, int64(len(*b)))
		*b = slices.DeleteFunc(*b, func(p *Proxy) bool {
			return p.Dev == dev && !(skipPerm && p.Permanent)
		})
	}
}

// ProxyNetExit removes every proxy entry of net, as its namespace goes.
//
// Kernel: neigh_ifdown(tbl, NULL) from the namespace's pernet exit
// (pneigh_ifdown_and_unlock with a NULL device).
func (tb *Table) ProxyNetExit(t *sim.Task, net *netdev.Table) {
	for i := range tb.pbuckets() {
		b := &tb.proxyB[i]
		*b = slices.DeleteFunc(*b, func(p *Proxy) bool { return p.Net == net })
	}
}

// ProxyWalk calls fn for the proxy entries of every namespace in the
// kernel's dump order (bucket by bucket, each newest first) from position
// pos, until fn returns false; it returns the position after the last
// entry fn accepted.
//
// Kernel: pneigh_dump_table (net/core/neighbour.c).
func (tb *Table) ProxyWalk(t *sim.Task, pos int, fn func(p *Proxy) bool) int {
	i := 0
	n := 0
	defer func() { t.Charge(sim.NeighVisit, int64(n)) }()
	for _, b := range tb.pbuckets() {
		for _, p := range b {
			if i < pos {
				i++
				continue
			}
			n++
			if !fn(p) {
				return i
			}
			i++
		}
	}
	return i
}
