// Namespace ids: the ids a namespace gives the other namespaces it knows of
// (net->netns_ids, an IDR), which the messages use to name a namespace
// (IFLA_LINK_NETNSID, IFLA_NEW_NETNSID, IFLA_TARGET_NETNSID), and the
// RTM_NEWNSID / RTM_GETNSID requests and RTM_NEWNSID / RTM_DELNSID
// notifications (RTNLGRP_NSID) that manage and announce them.
//
// An id is local to the namespace that holds it: namespace a may call b 0
// while b calls a 3, or has no id for it. An id is given by request
// (`ip netns set NAME ID|auto`) or by the kernel when a message must name
// a namespace that has none yet (peernet2id_alloc: a device whose peer or
// lower device is elsewhere, a device moved away). A namespace that goes
// away loses its ids in every other namespace, each of which is sent an
// RTM_DELNSID.
//
// The kernel serves RTM_NEWNSID and RTM_GETNSID without RTNL
// (RTNL_FLAG_DOIT_UNLOCKED, RTNL_FLAG_DUMP_UNLOCKED) under the
// namespace's nsid_lock; so does netsim.
//
// Kernel: alloc_netid, __peernet2id, peernet2id_alloc, peernet2id,
// get_net_ns_by_id, unhash_nsid, rtnl_net_newid, rtnl_net_getid,
// rtnl_net_dumpid, rtnl_valid_dump_net_req, rtnl_net_notifyid
// (net/core/net_namespace.c).

package rtnl

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// NsidNotAssigned is the id of a namespace that has none
// (NETNSA_NSID_NOT_ASSIGNED).
const NsidNotAssigned int32 = -1

// nsidEntry is one id of a namespace's table.
type nsidEntry struct {
	id   int32
	peer *Net
}

// nsids is a namespace's id table (net->netns_ids).
type nsids struct {
	mu sync.Mutex // net->nsid_lock
	// byID holds the ids in increasing order, as idr_for_each walks them.
	// +checklocks:mu
	byID []nsidEntry
	// n is len(byID), read without mu by unhashNsid's walk of every
	// namespace, which most often finds the table empty.
	n atomic.Int32
}

// lookupLocked returns the id of peer, or NsidNotAssigned.
//
// Kernel: __peernet2id (idr_for_each with net_eq_idr).
//
// +checklocks:s.mu
func (s *nsids) lookupLocked(peer *Net) int32 {
	for _, e := range s.byID {
		if e.peer == peer {
			return e.id
		}
	}
	return NsidNotAssigned
}

// allocLocked gives peer the id req when req >= 0, or else the lowest free
// id from 0; it returns the id, or ENOSPC when req is taken.
//
// Kernel: alloc_netid (idr_alloc over [req, req+1) or [0, INT_MAX)).
//
// +checklocks:s.mu
func (s *nsids) allocLocked(peer *Net, req int32) (int32, error) {
	id := max(req, 0)
	i, _ := slices.BinarySearchFunc(s.byID, id, cmpNsid)
	if req >= 0 {
		if i < len(s.byID) && s.byID[i].id == id {
			return 0, errno.New(syscall.ENOSPC, "")
		}
	} else {
		for ; i < len(s.byID) && s.byID[i].id == id; i++ {
			id++
		}
	}
	s.byID = append(s.byID, nsidEntry{})
	copy(s.byID[i+1:], s.byID[i:])
	s.byID[i] = nsidEntry{id, peer}
	s.n.Store(int32(len(s.byID)))
	return id, nil
}

// removeLocked takes peer's id out of the table and returns it, or
// NsidNotAssigned.
//
// +checklocks:s.mu
func (s *nsids) removeLocked(peer *Net) int32 {
	for i, e := range s.byID {
		if e.peer == peer {
			s.byID = append(s.byID[:i], s.byID[i+1:]...)
			s.n.Store(int32(len(s.byID)))
			return e.id
		}
	}
	return NsidNotAssigned
}

// cmpNsid orders a table's entries by id, for a binary search of id.
func cmpNsid(e nsidEntry, id int32) int { return cmp.Compare(e.id, id) }

// find returns the namespace that has id in n's table and is alive, or
// nil.
//
// Kernel: get_net_ns_by_id (idr_find, maybe_get_net).
func (n *Net) find(id int32) *Net {
	if id < 0 {
		return nil
	}
	n.ids.mu.Lock()
	defer n.ids.mu.Unlock()
	i, _ := slices.BinarySearchFunc(n.ids.byID, id, cmpNsid)
	if i < len(n.ids.byID) && n.ids.byID[i].id == id && n.ids.byID[i].peer.alive() {
		return n.ids.byID[i].peer
	}
	return nil
}

// peernet2id returns the id n has for peer, or NsidNotAssigned.
//
// Kernel: peernet2id (net/core/net_namespace.c).
func (n *Net) peernet2id(peer *Net) int32 {
	n.ids.mu.Lock()
	defer n.ids.mu.Unlock()
	return n.ids.lookupLocked(peer)
}

// peernet2idAlloc returns the id n has for peer, giving it the lowest free
// one (and announcing it with RTM_NEWNSID, from no request) when it has
// none; NsidNotAssigned while n or peer is being dismantled.
//
// Kernel: peernet2id_alloc (net/core/net_namespace.c).
func (n *Net) peernet2idAlloc(t *sim.Task, peer *Net) int32 {
	if !n.alive() {
		return NsidNotAssigned // check_net
	}
	n.ids.mu.Lock()
	if id := n.ids.lookupLocked(peer); id >= 0 {
		n.ids.mu.Unlock()
		return id
	}
	if !peer.alive() {
		n.ids.mu.Unlock()
		return NsidNotAssigned // maybe_get_net
	}
	id, err := n.ids.allocLocked(peer, -1)
	n.ids.mu.Unlock()
	if err != nil {
		return NsidNotAssigned
	}
	n.notifyNsid(rt.RTMNewNsid, id, Origin{})
	return id
}

// linkNetnsid returns the id src has for the namespace of the device d is
// linked to (a veth's peer, a vlan's or macvlan's lower device) when that
// is not d's own, giving it one if src has none; NsidNotAssigned when d's
// link is in d's namespace. The caller holds RTNL.
//
// Kernel: rtnl_fill_link_netnsid (net/core/rtnetlink.c), with
// rtnl_link_ops->get_link_net (veth_get_link_net, macvlan_get_link_net,
// vlan_get_link_net).
func (src *Net) linkNetnsid(t *sim.Task, d *netdev.Device) int32 {
	l := d.Link()
	if l == nil {
		l = d.Peer()
	}
	if l == nil || l.Table() == d.Table() {
		return NsidNotAssigned
	}
	ln := src.k.byTable[l.Table()]
	if ln == nil {
		return NsidNotAssigned
	}
	return src.peernet2idAlloc(t, ln)
}

// unhashNsid takes dying out of the list of namespaces, then its id out
// of every other live namespace's table, each of which is sent an
// RTM_DELNSID, in the order the namespaces were created, and empties
// dying's own table.
//
// Kernel: cleanup_net's list_del_rcu from net_namespace_list, then
// unhash_nsid (net/core/net_namespace.c).
func (k *Kernel) unhashNsid(t *sim.Task, dying *Net) {
	// One pass over the list: dying leaves it, and the namespaces with
	// ids (most have none) are noted in its order.
	var withIDs []*Net
	k.mu.Lock()
	kept := k.all[:0]
	for _, n := range k.all {
		switch {
		case n == dying:
			continue
		case n.ids.n.Load() != 0:
			withIDs = append(withIDs, n)
		}
		kept = append(kept, n)
	}
	clear(k.all[len(kept):])
	k.all = kept
	k.mu.Unlock()
	for _, n := range withIDs {
		n.ids.mu.Lock()
		id := n.ids.removeLocked(dying)
		n.ids.mu.Unlock()
		if id >= 0 {
			n.notifyNsid(rt.RTMDelNsid, id, Origin{})
		}
	}
	dying.ids.mu.Lock()
	dying.ids.byID = nil
	dying.ids.n.Store(0)
	dying.ids.mu.Unlock()
}

// NsidInfo is one namespace id as an RTM_NEWNSID message carries it.
type NsidInfo struct {
	NSID int32 // NETNSA_NSID: the id, or NsidNotAssigned
	// HasCurrent: the request named a target namespace, and CurrentNSID
	// is the requester's own id for the peer (NETNSA_CURRENT_NSID).
	HasCurrent  bool
	CurrentNSID int32
}

// notifyNsid sends an RTM_NEWNSID or RTM_DELNSID for id to n's
// RTNLGRP_NSID listeners.
//
// Kernel: rtnl_net_notifyid (net/core/net_namespace.c).
func (n *Net) notifyNsid(typ rt.MsgType, id int32, o Origin) {
	if !n.notifyNeeded() {
		return
	}
	n.send(Notification{Type: typ, Origin: o, Nsid: &NsidInfo{NSID: id}})
}

// NsidRequest is an RTM_NEWNSID request: give the namespace Peer names
// the id NSID in the requester's namespace.
type NsidRequest struct {
	Origin
	// NSID is NETNSA_NSID: the id to give, or a negative one for the
	// lowest free id (`ip netns set NAME auto` sends -1); nil when the
	// message has none.
	NSID *int32
	// Peer names the namespace by NETNSA_PID or NETNSA_FD (or, for a Go
	// caller, by Net); a namespace id does not name it here.
	Peer NetnsRef
}

// NewNsid serves r: the namespace r.Peer names gets the id r.NSID in h's
// namespace, announced with RTM_NEWNSID (carrying r's origin) to its
// RTNLGRP_NSID listeners.
//
// Kernel: rtnl_net_newid (net/core/net_namespace.c).
func (h *Handle) NewNsid(r NsidRequest) error {
	defer h.enter("RTM_NEWNSID")()
	if err := h.usable(); err != nil {
		return err
	}
	if r.NSID == nil {
		return errno.New(syscall.EINVAL, "nsid is missing")
	}
	if r.Peer.PID == nil && r.Peer.FD == nil && r.Peer.Net == nil {
		return errno.New(syscall.EINVAL, "Peer netns reference is missing")
	}
	net := h.n
	peer, err := r.Peer.resolve(net) // by Net, PID or FD, which resolve reads before NSID
	if err != nil {
		return peerInvalid(err)
	}
	net.ids.mu.Lock()
	if net.ids.lookupLocked(peer) >= 0 {
		net.ids.mu.Unlock()
		return errno.New(syscall.EEXIST, "Peer netns already has a nsid assigned")
	}
	id, err := net.ids.allocLocked(peer, *r.NSID)
	net.ids.mu.Unlock()
	if err != nil {
		return errno.New(syscall.EEXIST, "The specified nsid is already used")
	}
	net.notifyNsid(rt.RTMNewNsid, id, r.Origin)
	return nil
}

// peerInvalid is the error of a peer reference that names no namespace:
// the resolution's errno with rtnl_net_newid's and rtnl_net_getid's
// message.
func peerInvalid(err error) error {
	return errno.New(errno.Of(err), "Peer netns reference is invalid")
}

// NsidGetRequest is an RTM_GETNSID request without NLM_F_DUMP: the id of
// the namespace Peer names (by NETNSA_PID, NETNSA_FD or NETNSA_NSID, an id
// of the requester's), in the requester's namespace or, with TargetNSID,
// in the namespace the requester calls that.
type NsidGetRequest struct {
	Origin
	// GetChecks: on a strict socket no attribute but NETNSA_PID,
	// NETNSA_FD, NETNSA_NSID and NETNSA_TARGET_NSID.
	GetChecks
	Peer       NetnsRef
	TargetNSID *int32 // NETNSA_TARGET_NSID, or nil
}

// GetNsid answers r: the id, and with a target the requester's own id for
// the peer (NETNSA_CURRENT_NSID).
//
// Kernel: rtnl_net_getid, rtnl_net_valid_getid_req
// (net/core/net_namespace.c).
func (h *Handle) GetNsid(r NsidGetRequest) (NsidInfo, error) {
	defer h.enter("RTM_GETNSID")()
	if err := h.usable(); err != nil {
		return NsidInfo{}, err
	}
	if err := r.err("", "Unsupported attribute in peer netns getid request"); err != nil {
		return NsidInfo{}, err
	}
	net := h.n
	var peer *Net
	var err error
	switch {
	case r.Peer.PID != nil || r.Peer.FD != nil || r.Peer.Net != nil:
		peer, err = r.Peer.resolve(net) // by Net, PID or FD, which resolve reads before NSID
	case r.Peer.NSID != nil:
		if peer = net.find(*r.Peer.NSID); peer == nil {
			err = errno.New(syscall.ENOENT, "")
		}
	default:
		return NsidInfo{}, errno.New(syscall.EINVAL, "Peer netns reference is missing")
	}
	if err != nil {
		return NsidInfo{}, peerInvalid(err)
	}
	target := net
	var info NsidInfo
	if r.TargetNSID != nil {
		if target = net.find(*r.TargetNSID); target == nil {
			return NsidInfo{}, errno.New(syscall.EINVAL, "Target netns reference is invalid")
		}
		info.HasCurrent, info.CurrentNSID = true, net.peernet2id(peer)
	}
	info.NSID = target.peernet2id(peer)
	return info, nil
}

// NsidDumpRequest is an RTM_GETNSID dump: the ids of the requester's
// namespace or, on a strict socket with TargetNSID, of the namespace the
// requester calls that.
type NsidDumpRequest struct {
	Origin
	// Strict: the socket asked for strict checks; only then are the
	// attributes read (rtnl_valid_dump_net_req).
	Strict bool
	// AttrErr is the attributes' parse error, for a strict request.
	AttrErr error
	// TargetNSID is NETNSA_TARGET_NSID, or nil.
	TargetNSID *int32
	// Unsupported is the type of the first attribute other than
	// NETNSA_TARGET_NSID, or nil: a strict dump refuses it, unless a bad
	// NETNSA_TARGET_NSID comes first.
	Unsupported *uint16
}

// netnsaTargetNSID is NETNSA_TARGET_NSID's type, by which the dump's
// checks are ordered.
const netnsaTargetNSID = 4

// NsidDump is an RTM_GETNSID dump in progress.
type NsidDump struct {
	h        *Handle
	tgt, ref *Net // the table dumped; the requester's, for NETNSA_CURRENT_NSID, with a target
	idx      int  // cb->args[0]: the entries already dumped
}

// DumpNsids starts the dump r asks for, after a strict request's checks.
//
// Kernel: rtnl_net_dumpid, rtnl_valid_dump_net_req
// (net/core/net_namespace.c).
func (h *Handle) DumpNsids(r NsidDumpRequest) (*NsidDump, error) {
	defer h.enter("RTM_GETNSID")()
	if err := h.usable(); err != nil {
		return nil, err
	}
	d := &NsidDump{h: h, tgt: h.n}
	if !r.Strict {
		return d, nil
	}
	if r.AttrErr != nil {
		return nil, r.AttrErr
	}
	if r.Unsupported != nil && *r.Unsupported < netnsaTargetNSID {
		return nil, errno.New(syscall.EINVAL, "Unsupported attribute in dump request")
	}
	if r.TargetNSID != nil {
		tgt := h.n.find(*r.TargetNSID)
		if tgt == nil {
			return nil, errno.New(syscall.EINVAL, "Invalid target network namespace id")
		}
		d.tgt, d.ref = tgt, h.n
	}
	if r.Unsupported != nil {
		return nil, errno.New(syscall.EINVAL, "Unsupported attribute in dump request")
	}
	return d, nil
}

// Next is one part of the dump: it calls fn for the table's ids in
// increasing order from where the last part stopped, until fn returns
// false, and reports whether the dump is done.
//
// Kernel: rtnl_net_dumpid_one (idr_for_each from cb->args[0]).
func (d *NsidDump) Next(fn func(*NsidInfo) bool) (done bool) {
	defer d.h.enter("RTM_GETNSID")()
	d.tgt.ids.mu.Lock()
	entries := append([]nsidEntry(nil), d.tgt.ids.byID...)
	d.tgt.ids.mu.Unlock()
	for ; d.idx < len(entries); d.idx++ {
		e := entries[d.idx]
		info := NsidInfo{NSID: e.id}
		if d.ref != nil {
			info.HasCurrent, info.CurrentNSID = true, d.ref.peernet2id(e.peer)
		}
		if !fn(&info) {
			return false
		}
	}
	return true
}

// SetNetnsID gives the namespace named peer the id id in n (a negative id:
// the lowest free one), as `ip netns set PEER ID` run in n does.
func (h *Handle) SetNetnsID(peer *Net, id int32) error {
	return h.NewNsid(NsidRequest{NSID: &id, Peer: NetnsRef{Net: peer}})
}

// NetnsID returns the id h's namespace has for peer, or NsidNotAssigned.
func (h *Handle) NetnsID(peer *Net) (int32, error) {
	info, err := h.GetNsid(NsidGetRequest{Peer: NetnsRef{Net: peer}})
	return info.NSID, err
}
