// The fib_info hash: the keys fib_find_info and fib_find_info_nh compare,
// fib_info_hashfn, the chains of fib_infos by key, by nexthop object and by
// device (fib_info_devhash), and linking and releasing a fib_info
// (fib_info_hash_move, fib_release_info) (net/ipv4/fib_semantics.c).

package fib

import (
	"encoding/binary"
	"iter"
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
)

// nhInfoKey is what fib_find_info_nh compares: the fib_infos of routes
// that use a nexthop object.
type nhInfoKey struct {
	nhID     nexthop.ID
	priority uint32
	tbID     uint32
	prefsrc  uint32
	flags    NHFlags
	protocol Protocol
	scope    Scope
	typ      Type
}

func addr4(a netip.Addr) uint32 {
	if !a.Is4() {
		return 0
	}
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func addrFrom4(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

func (fi *fibInfo) nhKey() nhInfoKey {
	return nhInfoKey{nhID: fi.nh.ID(), priority: fi.priority, tbID: fi.tbID, prefsrc: addr4(fi.prefsrc),
		flags: fi.flags &^ compareMask, protocol: fi.protocol, scope: fi.scope, typ: fi.typ}
}

// nhComp is nh_comp for two fib_infos with the same key: the remaining
// classic nexthops must match too.
func nhComp(a, b *fibInfo) bool {
	if a.nh != nil || b.nh != nil {
		return a.nh == b.nh
	}
	if len(a.nhs) != len(b.nhs) {
		return false
	}
	for i := range a.nhs {
		x, y := &a.nhs[i], &b.nhs[i]
		if x.oif != y.oif || x.gw != y.gw || x.scope != y.scope || x.weight != y.weight ||
			(x.flags^y.flags)&^compareMask != 0 {
			return false
		}
	}
	return true
}

// infoHash is fib_info_hashfn for a fib_info with classic nexthops: it
// mixes what fib_find_info compares, the first nexthop's part included
// (the rest is compared on the chain), into the 64 bits fib_info_hash is
// indexed by.
func (fi *fibInfo) infoHash() uint64 {
	h := uint64(fi.priority)<<32 | uint64(fi.tbID)
	h = mix(h ^ uint64(addr4(fi.prefsrc))<<32 ^ uint64(fi.flags&^compareMask))
	var oif netdev.IfIndex
	var nhFlags NHFlags
	var nhScope Scope
	var weight int
	var gw [16]byte
	if len(fi.nhs) > 0 {
		nh := &fi.nhs[0]
		oif, nhFlags, nhScope, weight = nh.oif, nh.flags&^compareMask, nh.scope, nh.weight
		if nh.gw.IsValid() {
			gw = nh.gw.As16()
		}
	}
	h = mix(h ^ uint64(len(fi.nhs))<<40 ^ uint64(fi.protocol)<<32 ^ uint64(fi.scope)<<24 ^ uint64(fi.typ)<<16 ^ uint64(nhScope))
	h = mix(h ^ uint64(uint32(oif))<<32 ^ uint64(nhFlags) ^ uint64(weight)<<48)
	h = mix(h ^ binary.BigEndian.Uint64(gw[:8]))
	return mix(h ^ binary.BigEndian.Uint64(gw[8:]))
}

// sameInfo is fib_find_info's comparison of two fib_infos with classic
// nexthops: the same priority, table, prefsrc, flags, protocol, scope,
// type, nexthops (nh_comp) and metrics.
func sameInfo(a, b *fibInfo) bool {
	return a.priority == b.priority && a.tbID == b.tbID && addr4(a.prefsrc) == addr4(b.prefsrc) &&
		(a.flags^b.flags)&^compareMask == 0 && a.protocol == b.protocol && a.scope == b.scope &&
		a.typ == b.typ && nhComp(a, b) && metricsEqual(a.mx, b.mx)
}

// mix is splitmix64's finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// findInfo is fib_find_info for classic nexthops: an existing fib_info
// with the same configuration.
func (f *FIB) findInfo(nfi *fibInfo) *fibInfo {
	for fi := f.infos[nfi.infoHash()]; fi != nil; fi = f.fis.get(fi.hashNext) {
		f.work.infos++
		if sameInfo(fi, nfi) {
			return fi
		}
	}
	return nil
}

// findInfoNH is fib_find_info_nh: an existing fib_info with the same
// nexthop object and configuration.
func (f *FIB) findInfoNH(k nhInfoKey) *fibInfo {
	for fi := f.nhInfos.head(k.nhID); fi != nil; fi = f.fis.get(fi.hashNext) {
		f.work.infos++
		if fi.nhKey() == k {
			return fi
		}
	}
	return nil
}

// nhInfoIndex is fib_info_hash for the fib_infos of routes that use a
// nexthop object: for each nexthop id, the chain of its fib_infos, newest
// first. Ids below nhDenseMax (all the ids a big setup allocates in order)
// index a slice, where a map would hash the id twice per route; others go
// to a map. The slice holds the head's number in the FIB's infoTable, not
// a pointer, so the garbage collector has nothing to scan in it. A chain
// holds linked fib_infos only (linkInfo adds, releaseInfo takes out, each
// while the fib_info has its number). Its fis is the FIB's infoTable.
type nhInfoIndex struct {
	fis    *infoTable
	dense  []uint32 // head's infoTable index, 0 for none
	sparse map[nexthop.ID]*fibInfo
}

// nhDenseMax bounds the ids the slice covers (4 MB at most).
const nhDenseMax = 1 << 20

// head returns the first fib_info of id's chain.
func (x *nhInfoIndex) head(id nexthop.ID) *fibInfo {
	if id < nhDenseMax {
		if int(id) < len(x.dense) {
			if i := x.dense[id]; i != 0 {
				return x.fis.at(i)
			}
		}
		return nil
	}
	return x.sparse[id]
}

// setHead makes fi (possibly nil) the first fib_info of id's chain.
func (x *nhInfoIndex) setHead(id nexthop.ID, fi *fibInfo) {
	if id >= nhDenseMax {
		if fi == nil {
			delete(x.sparse, id)
			return
		}
		if x.sparse == nil {
			x.sparse = make(map[nexthop.ID]*fibInfo)
		}
		x.sparse[id] = fi
		return
	}
	if int(id) >= len(x.dense) {
		if fi == nil {
			return
		}
		n := min(max(int(id)+1, 2*len(x.dense), 64), nhDenseMax)
		x.dense = append(x.dense, make([]uint32, n-len(x.dense))...)
	}
	if fi == nil {
		x.dense[id] = 0
		return
	}
	if fi.idx == 0 {
		panic("fib: an unlinked fib_info in the nexthop fib_info hash")
	}
	x.dense[id] = fi.idx
}

// add puts fi at the head of id's chain.
func (x *nhInfoIndex) add(id nexthop.ID, fi *fibInfo) {
	fi.hashNext = num(x.head(id))
	x.setHead(id, fi)
}

// del takes fi out of id's chain.
func (x *nhInfoIndex) del(id nexthop.ID, fi *fibInfo) {
	if p := x.head(id); p == fi {
		x.setHead(id, x.fis.get(fi.hashNext))
	} else {
		unlinkAfter(x.fis, p, fi)
	}
	fi.hashNext = 0
}

// all yields each id with a chain and the chain's first fib_info.
func (x *nhInfoIndex) all() iter.Seq2[nexthop.ID, *fibInfo] {
	return func(yield func(nexthop.ID, *fibInfo) bool) {
		for id, i := range x.dense {
			if i != 0 && !yield(nexthop.ID(id), x.fis.at(i)) {
				return
			}
		}
		for id, fi := range x.sparse {
			if !yield(id, fi) {
				return
			}
		}
	}
}

// chainAdd puts fi at the head of the hash chain of key k.
func chainAdd[K comparable](m map[K]*fibInfo, k K, fi *fibInfo) {
	fi.hashNext = num(m[k])
	m[k] = fi
}

// chainDel takes fi out of the hash chain of key k.
func chainDel[K comparable](fis *infoTable, m map[K]*fibInfo, k K, fi *fibInfo) {
	switch p := m[k]; {
	case p == fi && fi.hashNext == 0:
		delete(m, k)
	case p == fi:
		m[k] = fis.get(fi.hashNext)
	default:
		unlinkAfter(fis, p, fi)
	}
	fi.hashNext = 0
}

// unlinkAfter takes fi out of the hash chain that goes on from p (not fi).
func unlinkAfter(fis *infoTable, p, fi *fibInfo) {
	for ; p != nil; p = fis.get(p.hashNext) {
		if p.hashNext == fi.idx {
			p.hashNext = fi.hashNext
			return
		}
	}
}

// linkInfo puts a new fib_info in the hash tables and on its nexthop's or
// devices' lists (the end of fib_create_info).
func (f *FIB) linkInfo(fi *fibInfo) {
	fi.treeref = 1
	f.fis.add(fi)
	if fi.nh != nil {
		f.nhInfos.add(fi.nh.ID(), fi)
	} else {
		chainAdd(f.infos, fi.infoHash(), fi)
	}
	f.infoCount++
	f.infoBytes += fi.alloc()
	if fi.prefsrc.IsValid() {
		h := f.laddr[fi.prefsrc]
		fi.lnext = num(h)
		if h != nil {
			h.lprev = fi.idx
		}
		f.laddr[fi.prefsrc] = fi
	}
	if fi.nh != nil {
		fi.nh.AddFIBUser(fi)
		return
	}
	if fi.flags&(FlagDead|FlagLinkDown) != 0 {
		f.flagGen++
	}
	for i := range fi.nhs {
		nh := &fi.nhs[i]
		if nh.dev == nil {
			continue
		}
		if nh.flags&(FlagDead|FlagLinkDown) != 0 {
			f.flagGen++
		}
		nh.parent = fi
		c := f.devNH[nh.dev]
		if c == nil {
			c = &devChain{}
			f.devNH[nh.dev] = c
		}
		h := c.head
		if h == nil || h.parent != fi {
			c.infos++ // fi's first path on the device
		}
		nh.devNext = h
		if h != nil {
			h.devPrev = nh
		}
		nh.hashed = true
		c.head = nh
	}
}

// devChain is one device's chain of fib_info_devhash: its classic
// nexthops, newest first, a fib_info's paths on the device side by side
// (linkInfo pushes them one after the other).
//
// fib_sync_up walks the whole chain on every IPv4 address added to the
// device, so adding N addresses walks it N²/2 times in the kernel. netsim
// counts that walk (sim.FibDevhashVisit) but does it in Go only when it
// can change something: infos is the number of fib_infos a walk visits,
// and clean says that the last walk found nothing to revive and nothing
// was flagged since.
type devChain struct {
	head  *fibNH
	infos int64 // the distinct fib_infos on the chain
	// clean is the FIB's flagGen+1 when a walk found no fib_info on the
	// chain, nor any of its nexthops on the device, flagged dead or
	// link-down, and none has been flagged since; 0 when unknown.
	clean uint64
}

// releaseInfo is fib_release_info: drop one route's reference; the last
// one unlinks the fib_info.
func (f *FIB) releaseInfo(fi *fibInfo) {
	if fi == nil {
		return
	}
	fi.treeref--
	if fi.treeref > 0 {
		return
	}
	f.work.freed++
	// Unhash.
	if fi.nh != nil {
		f.nhInfos.del(fi.nh.ID(), fi)
	} else {
		chainDel(&f.fis, f.infos, fi.infoHash(), fi)
	}
	f.fis.remove(fi)
	f.infoCount--
	f.infoBytes -= fi.alloc()
	if fi.prefsrc.IsValid() {
		if fi.lprev != 0 {
			f.fis.at(fi.lprev).lnext = fi.lnext
		} else if fi.lnext != 0 {
			f.laddr[fi.prefsrc] = f.fis.at(fi.lnext)
		} else {
			delete(f.laddr, fi.prefsrc)
		}
		if fi.lnext != 0 {
			f.fis.at(fi.lnext).lprev = fi.lprev
		}
		fi.lprev, fi.lnext = 0, 0
	}
	if fi.nh != nil {
		fi.nh.RemoveFIBUser(fi)
	} else {
		for i := range fi.nhs {
			f.unhashNH(&fi.nhs[i])
		}
	}
}

func (f *FIB) unhashNH(nh *fibNH) {
	if !nh.hashed {
		return
	}
	c := f.devNH[nh.dev]
	if (nh.devPrev == nil || nh.devPrev.parent != nh.parent) && (nh.devNext == nil || nh.devNext.parent != nh.parent) {
		c.infos-- // the fib_info's last path on the device
	}
	if nh.devPrev != nil {
		nh.devPrev.devNext = nh.devNext
	} else if nh.devNext != nil {
		c.head = nh.devNext
	} else {
		delete(f.devNH, nh.dev)
	}
	if nh.devNext != nil {
		nh.devNext.devPrev = nh.devPrev
	}
	nh.devPrev, nh.devNext, nh.hashed = nil, nil, false
}
