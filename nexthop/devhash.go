// devhash.go follows the per-device nexthop hash of net/ipv4/nexthop.c:
// net->nexthop.devhash, nh_dev_hashfn and nexthop_devhash_add.

package nexthop

import "github.com/netsimlab/netsim/netdev"

const (
	devHashBits = 8                // NH_DEV_HASHBITS
	devHashSize = 1 << devHashBits // NH_DEV_HASHSIZE
)

// devHashFn folds an ifindex into a bucket: devices whose ifindexes differ
// by a multiple of 256 (roughly) share a bucket, and nexthop_flush_dev walks
// past the other device's nexthops.
//
// Kernel: nh_dev_hashfn (net/ipv4/nexthop.c).
func devHashFn(ifindex netdev.IfIndex) uint32 {
	v := uint32(ifindex)
	return (v ^ v>>devHashBits ^ v>>(2*devHashBits)) & (devHashSize - 1)
}

// devBucket is one bucket of the per-device hash: the single nexthops
// hashed there, oldest first, each knowing its slot (Nexthop.hpos). A
// removed nexthop leaves a nil slot, so that a walk removing nexthops as it
// goes keeps its place; a bucket with as many nil slots as nexthops is
// compacted by the next add. A slice of pointers is one pointer per
// nexthop for the garbage collector to follow, where the kernel's hlist
// links are two.
type devBucket struct {
	nhs   []*Nexthop
	holes int // nil slots in nhs
}

// devhashAdd links a single nexthop at the head of its device's bucket
// (hlist_add_head), so nexthop_flush_dev meets the newest first. Blackholes
// are hashed on loopback's ifindex, the device the kernel gives them. The
// kernel hashes the nh_info; the bucket holds the Nexthop here, which the
// nh_info belongs to (a replace moves the Nexthop from the old nh_info's
// bucket to the new one's), so an nh_info needs no pointer back to it.
//
// Kernel: nexthop_devhash_add (net/ipv4/nexthop.c).
func (tb *Table) devhashAdd(nh *Nexthop) {
	info := nh.info
	if info.fdb {
		return // nexthop_create hashes no fdb nexthop: it has no device
	}
	if info.dev != nil {
		info.ifindex = info.dev.Index()
	} else {
		info.ifindex = netdev.LoopbackIfIndex
	}
	b := &tb.devhash[devHashFn(info.ifindex)]
	if b.holes > 0 && 2*b.holes >= len(b.nhs) {
		b.compact()
	}
	nh.hpos = uint32(len(b.nhs))
	if len(b.nhs) == cap(b.nhs) {
		// Double (append grows large slices by a quarter, which copies a
		// device's bucket of a big setup five times over).
		b.nhs = append(make([]*Nexthop, 0, max(8, 2*cap(b.nhs))), b.nhs...)
	}
	b.nhs = append(b.nhs, nh)
	nh.hashed = true
}

// devhashDel unlinks a single nexthop from its bucket (hlist_del).
func (tb *Table) devhashDel(nh *Nexthop) {
	if !nh.hashed {
		return
	}
	b := &tb.devhash[devHashFn(nh.info.ifindex)]
	b.nhs[nh.hpos] = nil
	b.holes++
	for n := len(b.nhs); n > 0 && b.nhs[n-1] == nil; n-- {
		b.nhs = b.nhs[:n-1]
		b.holes--
	}
	nh.hpos, nh.hashed = 0, false
}

// compact closes the bucket's holes, keeping the order.
func (b *devBucket) compact() {
	k := 0
	for _, nh := range b.nhs {
		if nh != nil {
			nh.hpos = uint32(k)
			b.nhs[k] = nh
			k++
		}
	}
	clear(b.nhs[k:])
	b.nhs, b.holes = b.nhs[:k], 0
}

// onDev reports whether info's device is dev (nhc_dev == dev); blackholes
// are on loopback.
func (info *nhInfo) onDev(dev *netdev.Device) bool {
	if info.dev != nil {
		return info.dev == dev
	}
	return dev.Index() == netdev.LoopbackIfIndex
}
