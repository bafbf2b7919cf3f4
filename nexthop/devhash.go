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

// devhashAdd links a single nexthop at the head of its device's bucket
// (hlist_add_head), so nexthop_flush_dev meets the newest first. Blackholes
// are hashed on loopback's ifindex, the device the kernel gives them. The
// kernel hashes the nh_info; the links sit in the Nexthop here, which the
// nh_info belongs to (a replace moves the Nexthop from the old nh_info's
// bucket to the new one's), so an nh_info needs no pointer back to it.
//
// Kernel: nexthop_devhash_add (net/ipv4/nexthop.c).
func (tb *Table) devhashAdd(nh *Nexthop) {
	info := nh.info
	if info.dev != nil {
		info.ifindex = info.dev.Index()
	} else {
		info.ifindex = netdev.LoopbackIfIndex
	}
	b := &tb.devhash[devHashFn(info.ifindex)]
	nh.hprev, nh.hnext = nil, *b
	if *b != nil {
		(*b).hprev = nh
	}
	*b = nh
	nh.hashed = true
}

// devhashDel unlinks a single nexthop from its bucket (hlist_del).
func (tb *Table) devhashDel(nh *Nexthop) {
	if !nh.hashed {
		return
	}
	if nh.hprev != nil {
		nh.hprev.hnext = nh.hnext
	} else {
		tb.devhash[devHashFn(nh.info.ifindex)] = nh.hnext
	}
	if nh.hnext != nil {
		nh.hnext.hprev = nh.hprev
	}
	nh.hprev, nh.hnext, nh.hashed = nil, nil, false
}

// onDev reports whether info's device is dev (nhc_dev == dev); blackholes
// are on loopback.
func (info *nhInfo) onDev(dev *netdev.Device) bool {
	if info.dev != nil {
		return info.dev == dev
	}
	return dev.Index() == netdev.LoopbackIfIndex
}
