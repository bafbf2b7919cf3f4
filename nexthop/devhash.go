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
// are hashed on loopback's ifindex, the device the kernel gives them.
//
// Kernel: nexthop_devhash_add (net/ipv4/nexthop.c).
func (tb *Table) devhashAdd(info *nhInfo) {
	if info.dev != nil {
		info.ifindex = info.dev.Index()
	} else {
		info.ifindex = netdev.LoopbackIfIndex
	}
	b := &tb.devhash[devHashFn(info.ifindex)]
	info.hprev, info.hnext = nil, *b
	if *b != nil {
		(*b).hprev = info
	}
	*b = info
	info.hashed = true
}

// devhashDel unlinks a single nexthop from its bucket (hlist_del).
func (tb *Table) devhashDel(info *nhInfo) {
	if !info.hashed {
		return
	}
	if info.hprev != nil {
		info.hprev.hnext = info.hnext
	} else {
		tb.devhash[devHashFn(info.ifindex)] = info.hnext
	}
	if info.hnext != nil {
		info.hnext.hprev = info.hprev
	}
	info.hprev, info.hnext, info.hashed = nil, nil, false
}

// onDev reports whether info's device is dev (nhc_dev == dev); blackholes
// are on loopback.
func (info *nhInfo) onDev(dev *netdev.Device) bool {
	if info.dev != nil {
		return info.dev == dev
	}
	return dev.Index() == netdev.LoopbackIfIndex
}
