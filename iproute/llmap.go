// ip's device-name cache: iproute2 6.1's lib/ll_map.c (ll_name_to_index,
// ll_remember_index, ll_drop_by_index, ll_init_map), kept for the life of
// one ip process, and the handle through which the commands resolve names.

package iproute

import (
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
)

// handle is the namespace's rtnl.Handle as one ip process uses it: its
// LinkIndex resolves a name through the process's cache (ll).
type handle struct {
	*rtnl.Handle
	ll *llMap
}

// LinkIndex is ll_name_to_index: the ifindex the process's cache holds for
// name, which costs no request, or else the kernel's answer to a request
// (ll_link_get's RTM_GETLINK), which the cache keeps. 0: no such device.
// A cached index may be stale: the device may have gone, by a request that
// did not name it (a group deletion, a veth's peer) or by another
// process, and a request that carries the index then fails as the
// kernel's lookup by index does.
func (h *handle) LinkIndex(name string) netdev.IfIndex {
	if e := h.ll.byName[name]; e != nil {
		return e.index
	}
	i := h.Handle.LinkIndex(name)
	if i != 0 {
		h.ll.remember(i, name)
	}
	return i
}

// llIdxMapSize is ll_map.c's IDXMAP_SIZE: the buckets of its name hash.
const llIdxMapSize = 1024

// llEntry is a struct ll_cache: a device's index and the name it was
// cached under.
type llEntry struct {
	index netdev.IfIndex
	name  string
	// bucket is the name-hash bucket the entry hangs in: namehash of the
	// last name ll_remember_index saw for it, which need not be name.
	bucket uint32
}

// llMap is ll_map.c's idx_head and name_head: the devices the process has
// learnt of, by index and by name. The zero llMap is empty.
type llMap struct {
	byIndex map[netdev.IfIndex]*llEntry
	// byName holds the entries a lookup by name finds: those whose name
	// hashes to the bucket they hang in.
	byName map[string]*llEntry
	// initialized is ll_init_map's static: the process has dumped every
	// link once.
	initialized bool
}

// namehash is iproute2's namehash (djb2).
func namehash(s string) uint32 {
	h := uint32(5381)
	for i := 0; i < len(s); i++ {
		h = h*33 + uint32(int8(s[i])) // C's char is signed on x86
	}
	return h
}

func llBucket(name string) uint32 { return namehash(name) & (llIdxMapSize - 1) }

// remember is ll_remember_index for an RTM_NEWLINK answer naming device
// index as name. A new index is cached under name. A known one keeps the
// name it was cached under (ll_entry_update moves the entry to name's
// bucket but does not copy the name): after a rename the entry is found
// by neither name unless both hash to one bucket, where the old name
// still finds it.
func (m *llMap) remember(index netdev.IfIndex, name string) {
	if m.byIndex == nil {
		m.byIndex = make(map[netdev.IfIndex]*llEntry)
		m.byName = make(map[string]*llEntry)
	}
	if e := m.byIndex[index]; e != nil {
		if e.name == name {
			return
		}
		m.unlinkName(e)
		e.bucket = llBucket(name)
		if e.bucket == llBucket(e.name) {
			m.byName[e.name] = e
		}
		return
	}
	e := &llEntry{index: index, name: name, bucket: llBucket(name)}
	m.byIndex[index] = e
	// hlist_add_head: the newest entry of a name is the one found.
	m.byName[name] = e
}

// rememberAll is ll_remember_index for each link of a dump's answer
// (store_nlmsg, ll_init_map).
func (m *llMap) rememberAll(links []rtnl.LinkInfo) {
	for i := range links {
		m.remember(links[i].Index, links[i].Name)
	}
}

// rememberListed caches the links `ip addr show` and `ip link show` get
// (ipaddr_list_flush_or_save's store_nlmsg): the device of a dev filter
// (ipaddr_link_get, by the index the cache gave), or else what the link
// dump answers, which the kernel filters by master and kind
// (iplink_filter_req).
func (h *handle) rememberListed(f *addrFilter, links []rtnl.LinkInfo) {
	if f.dev == "" {
		for i := range links {
			if f.kernelKeep(links[i]) {
				h.ll.remember(links[i].Index, links[i].Name)
			}
		}
		return
	}
	for j := range links {
		if links[j].Index == f.devIndex {
			h.ll.remember(f.devIndex, links[j].Name)
		}
	}
}

// drop is ll_drop_by_index: after a successful link request the device's
// entry goes, so that the next use asks the kernel again. Index 0 (a
// request that named no device: a creation, a group) drops nothing.
func (m *llMap) drop(index netdev.IfIndex) {
	e := m.byIndex[index]
	if e == nil {
		return
	}
	delete(m.byIndex, index)
	m.unlinkName(e)
}

// unlinkName takes e out of the lookup by name, where it is the entry
// found for its name.
func (m *llMap) unlinkName(e *llEntry) {
	if m.byName[e.name] == e {
		delete(m.byName, e.name)
	}
}

// initMap is ll_init_map: the first call of a process dumps every link
// (one request) into the cache; later calls do nothing.
func (h *handle) initMap() error {
	if h.ll.initialized {
		return nil
	}
	links, err := h.LinkList()
	if err != nil {
		return err
	}
	h.ll.rememberAll(links)
	h.ll.initialized = true
	return nil
}
