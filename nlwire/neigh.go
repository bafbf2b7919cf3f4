// Neighbour requests on the wire: RTM_NEWNEIGH, RTM_DELNEIGH and
// RTM_GETNEIGH (doit and dump), struct ndmsg and the NDA_* attributes of
// include/uapi/linux/neighbour.h, served by net/core/neighbour.c's
// neigh_add, neigh_delete, neigh_get and neigh_dump_info, which it
// registers for PF_UNSPEC.

package nlwire

import (
	"cmp"
	"encoding/binary"
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// ndmsgLen is sizeof(struct ndmsg): family, pad1 (u8), pad2 (u16),
// ifindex (s32), state (u16), flags, type (u8).
const ndmsgLen = 12

// ndaCacheinfoLen is sizeof(struct nda_cacheinfo).
const ndaCacheinfoLen = 16

// ndaPolicy is nda_policy (net/core/neighbour.c); MAX_ADDR_LEN is 32.
// NDA_NDM_STATE_MASK and NDA_NDM_FLAGS_MASK are the bridge's fdb flush
// selectors.
var ndaPolicy = policy{strictStart: uapi.NDA_NH_ID, attrs: []attrPolicy{
	uapi.NDA_DST:           {typ: nlaBinary, len: 32},
	uapi.NDA_LLADDR:        {typ: nlaBinary, len: 32},
	uapi.NDA_CACHEINFO:     {typ: nlaUnspec, len: ndaCacheinfoLen},
	uapi.NDA_PROBES:        {typ: nlaU32},
	uapi.NDA_VLAN:          {typ: nlaU16},
	uapi.NDA_PORT:          {typ: nlaU16},
	uapi.NDA_VNI:           {typ: nlaU32},
	uapi.NDA_IFINDEX:       {typ: nlaU32},
	uapi.NDA_MASTER:        {typ: nlaU32},
	uapi.NDA_PROTOCOL:      {typ: nlaU8},
	uapi.NDA_NH_ID:         {typ: nlaU32},
	uapi.NDA_FLAGS_EXT:     polMask(nlaU32, uapi.NTF_EXT_MASK),
	uapi.NDA_FDB_EXT_ATTRS: {typ: nlaNested},
	uapi.NDA_STATE_MASK:    {typ: nlaU16},
	uapi.NDA_FLAGS_MASK:    {typ: nlaU8},
}}

func init() {
	register(uapi.AF_UNSPEC, rt.RTMNewNeigh, handler{do: newNeigh})
	register(uapi.AF_UNSPEC, rt.RTMDelNeigh, handler{do: delNeigh})
	register(uapi.AF_UNSPEC, rt.RTMGetNeigh, handler{do: getNeigh, dump: dumpNeighs})
	registerNotify(rt.RTMNewNeigh, notifyNeigh)
	registerNotify(rt.RTMDelNeigh, notifyNeigh)
}

// neighRequest parses an RTM_NEWNEIGH or RTM_DELNEIGH as
// nlmsg_parse_deprecated with nda_policy does, into the request it
// describes; the attributes of bridge fdb entries (NDA_VLAN, NDA_PORT,
// NDA_VNI, NDA_NH_ID, ...), which neigh_add and neigh_delete ignore for
// the IP tables, are ignored too.
func neighRequest(r *request) (rtnl.NeighRequest, error) {
	if len(r.body) < ndmsgLen {
		return rtnl.NeighRequest{}, errno.New(syscall.EINVAL, "Invalid header length")
	}
	tb, err := r.parseAttrs(r.body[ndmsgLen:], 16+ndmsgLen, ndaPolicy, validateLiberal)
	if err != nil {
		return rtnl.NeighRequest{}, err
	}
	b := r.body
	q := rtnl.NeighRequest{
		Origin: r.origin, Flags: rt.NLMFlags(r.hdr.Flags), Family: rt.Family(b[0]),
		Index: netdev.IfIndex(int32(binary.LittleEndian.Uint32(b[4:]))),
		State: neigh.State(binary.LittleEndian.Uint16(b[8:])),
		NTF:   neigh.Flags(b[10]) | neigh.Flags(tb.u32(uapi.NDA_FLAGS_EXT))<<8,
		Dst:   tb.get(uapi.NDA_DST), LLAddr: tb.get(uapi.NDA_LLADDR), Protocol: tb.u8(uapi.NDA_PROTOCOL),
	}
	return q, nil
}

// newNeigh serves RTM_NEWNEIGH.
//
// Kernel: neigh_add (net/core/neighbour.c).
func newNeigh(r *request) ([]netlink.Message, error) {
	q, err := neighRequest(r)
	if err != nil {
		return nil, err
	}
	return nil, r.h.NewNeigh(q)
}

// delNeigh serves RTM_DELNEIGH.
//
// Kernel: neigh_delete (net/core/neighbour.c).
func delNeigh(r *request) ([]netlink.Message, error) {
	q, err := neighRequest(r)
	if err != nil {
		return nil, err
	}
	q.Flags = 0
	return nil, r.h.DelNeigh(q)
}

// getNeigh serves RTM_GETNEIGH without NLM_F_DUMP: neigh_valid_get_req's
// checks (strict whatever the socket says), then the entry.
//
// Kernel: neigh_get, neigh_valid_get_req (net/core/neighbour.c).
func getNeigh(r *request) ([]netlink.Message, error) {
	q := rtnl.NeighGetRequest{Origin: r.origin, ShortHeader: len(r.body) < ndmsgLen}
	if !q.ShortHeader {
		b := r.body
		q.Family = rt.Family(b[0])
		q.Index = netdev.IfIndex(int32(binary.LittleEndian.Uint32(b[4:])))
		q.HeaderSet = b[1] != 0 || b[2] != 0 || b[3] != 0 || b[8] != 0 || b[9] != 0 || b[11] != 0
		q.BadFlags = b[10]&^uapi.NTF_PROXY != 0
		q.Proxy = b[10]&uapi.NTF_PROXY != 0
		if !q.HeaderSet && !q.BadFlags && (q.Proxy || q.Index != 0) {
			tb, err := r.parseAttrs(b[ndmsgLen:], 16+ndmsgLen, ndaPolicy, validateStrict)
			if err != nil {
				return nil, err
			}
			for t := uint16(1); t <= uapi.NDA_MAX; t++ {
				if tb.has(t) && t != uapi.NDA_DST {
					q.Unsupported = true
				}
			}
			q.Dst = tb.get(uapi.NDA_DST)
		}
	}
	n, err := r.h.GetNeigh(q)
	if err != nil {
		return nil, err
	}
	return []netlink.Message{{Header: netlink.Header{Type: netlink.HeaderType(rt.RTMNewNeigh)}, Data: neighMessage(&n)}}, nil
}

// dumpNeighs serves an RTM_GETNEIGH dump: neigh_valid_dump_req's checks
// (strict ones on a strict socket), the NDA_IFINDEX and NDA_MASTER
// filters, and the proxy entries when ndm_flags is NTF_PROXY.
//
// Kernel: neigh_dump_info, neigh_valid_dump_req (net/core/neighbour.c).
func dumpNeighs(r *request) (dumper, error) {
	q := rtnl.NeighDumpRequest{Origin: r.origin, Family: rt.Family(r.family()), Strict: r.strict, ShortHeader: len(r.body) < ndmsgLen}
	if !q.ShortHeader {
		b := r.body
		q.Proxy = b[10] == uapi.NTF_PROXY
		q.HeaderSet = b[1] != 0 || b[2] != 0 || b[3] != 0 || binary.LittleEndian.Uint32(b[4:]) != 0 || b[8] != 0 || b[9] != 0 || b[11] != 0
		q.BadFlags = b[10]&^uapi.NTF_PROXY != 0
		v := validateLiberal
		if r.strict {
			v = validateStrict
		}
		if !r.strict || !q.HeaderSet && !q.BadFlags {
			tb, err := r.parseAttrs(b[ndmsgLen:], 16+ndmsgLen, ndaPolicy, v)
			if err != nil {
				return nil, err
			}
			q.Index = netdev.IfIndex(tb.u32(uapi.NDA_IFINDEX))
			q.Master = int32(tb.u32(uapi.NDA_MASTER))
			for t := uint16(1); t <= uapi.NDA_MAX; t++ {
				if tb.has(t) && t != uapi.NDA_IFINDEX && t != uapi.NDA_MASTER {
					q.Unsupported = true
				}
			}
		}
	} else if !r.strict {
		q.ShortHeader = false // a short rtgenmsg dumps every table unfiltered
	}
	d, err := r.h.DumpNeighs(q)
	if err != nil {
		return nil, err
	}
	var flags netlink.HeaderFlags
	if q.Filtered() {
		flags = uapi.NLM_F_DUMP_FILTERED
	}
	return &neighDumper{d, flags}, nil
}

// neighDumper puts a neighbour dump's parts.
type neighDumper struct {
	d     *rtnl.NeighDump
	flags netlink.HeaderFlags
}

// fill puts the entries from the dump's cursor on, table after table.
//
// Kernel: neigh_dump_table, pneigh_dump_table (net/core/neighbour.c).
func (d *neighDumper) fill(p *part) (bool, error) {
	var perr error
	done, err := d.d.Next(putEach(p, rt.RTMNewNeigh, d.flags,
		func(n *rtnl.NeighInfo, _ int) ([]byte, error) { return neighMessage(n), nil }, &perr))
	if err != nil || perr != nil {
		return false, cmp.Or(err, perr)
	}
	return done, nil
}

func (d *neighDumper) close() { d.d.Close() }

// notifyNeigh builds RTM_NEWNEIGH and RTM_DELNEIGH notifications for
// RTNLGRP_NEIGH.
//
// Kernel: __neigh_notify (net/core/neighbour.c).
func notifyNeigh(n rtnl.Notification) ([]byte, uint32, error) {
	if n.Neigh == nil {
		return nil, 0, nil
	}
	return neighMessage(n.Neigh), uapi.RTNLGRP_NEIGH, nil
}

// neighMessage encodes an entry as the kernel's messages carry it, the
// attributes in its order.
//
// Kernel: neigh_fill_info, pneigh_fill_info (net/core/neighbour.c).
func neighMessage(n *rtnl.NeighInfo) []byte {
	b := make([]byte, ndmsgLen, 96)
	b[0] = uint8(n.Family)
	binary.LittleEndian.PutUint32(b[4:], uint32(n.Index))
	binary.LittleEndian.PutUint16(b[8:], uint16(n.State))
	b[10] = uint8(n.NTF)
	b[11] = uint8(n.Type)
	b = appendAttr(b, uapi.NDA_DST, n.Dst.AsSlice())
	if n.NTF&neigh.FlagProxy != 0 {
		if n.Protocol != 0 {
			b = appendAttr(b, uapi.NDA_PROTOCOL, []byte{n.Protocol})
		}
		return appendFlagsExt(b, n.NTF)
	}
	if n.HasLL {
		b = appendAttr(b, uapi.NDA_LLADDR, n.LLAddr[:])
	}
	var u32 [4]byte
	binary.LittleEndian.PutUint32(u32[:], n.Probes)
	b = appendAttr(b, uapi.NDA_PROBES, u32[:])
	ci := make([]byte, ndaCacheinfoLen)
	binary.LittleEndian.PutUint32(ci[0:], n.Cache.Confirmed)
	binary.LittleEndian.PutUint32(ci[4:], n.Cache.Used)
	binary.LittleEndian.PutUint32(ci[8:], n.Cache.Updated)
	binary.LittleEndian.PutUint32(ci[12:], n.Cache.Refcnt)
	b = appendAttr(b, uapi.NDA_CACHEINFO, ci)
	if n.Protocol != 0 {
		b = appendAttr(b, uapi.NDA_PROTOCOL, []byte{n.Protocol})
	}
	return appendFlagsExt(b, n.NTF)
}

// appendFlagsExt puts NDA_FLAGS_EXT when the entry has a flag above
// ndm_flags' byte.
func appendFlagsExt(b []byte, f neigh.Flags) []byte {
	if ext := uint32(f >> 8); ext != 0 {
		var u32 [4]byte
		binary.LittleEndian.PutUint32(u32[:], ext)
		b = appendAttr(b, uapi.NDA_FLAGS_EXT, u32[:])
	}
	return b
}
