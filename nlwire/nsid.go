// Namespace ids on the wire: RTM_NEWNSID, RTM_GETNSID (doit and dump) and
// the RTM_NEWNSID / RTM_DELNSID notifications of RTNLGRP_NSID, a struct
// rtgenmsg and the NETNSA_* attributes of include/uapi/linux/
// net_namespace.h, served by net/core/net_namespace.c's rtnl_net_newid,
// rtnl_net_getid and rtnl_net_dumpid, which it registers for PF_UNSPEC.
// NETNSA_PID names a namespace by the process id rtnl.Net.PID gives it,
// NETNSA_FD by a descriptor of rtnl.Kernel.OpenNetnsFD.

package nlwire

import (
	"encoding/binary"
	"errors"
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// The NETNSA_* attribute types (include/uapi/linux/net_namespace.h).
const (
	netnsaNone        = 0
	netnsaNSID        = 1
	netnsaPID         = 2
	netnsaFD          = 3
	netnsaTargetNSID  = 4
	netnsaCurrentNSID = 5
)

// rtgenmsgLen is sizeof(struct rtgenmsg); its attributes start at
// NLMSG_ALIGN of it.
const rtgenmsgLen = 1

// netnsaPolicy is rtnl_net_policy, with NETNSA_MAX (NETNSA_CURRENT_NSID)
// as its maxtype and no entry of its own for it.
var netnsaPolicy = policy{attrs: []attrPolicy{
	netnsaNone:        {typ: nlaUnspec},
	netnsaNSID:        {typ: nlaS32},
	netnsaPID:         {typ: nlaU32},
	netnsaFD:          {typ: nlaU32},
	netnsaTargetNSID:  {typ: nlaS32},
	netnsaCurrentNSID: {typ: nlaUnspec},
}}

func init() {
	register(uapi.AF_UNSPEC, rt.RTMNewNsid, handler{do: newNsid})
	register(uapi.AF_UNSPEC, rt.RTMGetNsid, handler{do: getNsid, dump: dumpNsids})
	registerNotify(rt.RTMNewNsid, notifyNsid)
	registerNotify(rt.RTMDelNsid, notifyNsid)
}

// nsidAttrs parses a request's rtgenmsg and attributes as nlmsg_parse
// with rtnl_net_policy does, with validation v.
func nsidAttrs(r *request, v validation) (attrs, error) {
	if len(r.body) < rtgenmsgLen {
		return attrs{}, errno.New(syscall.EINVAL, "Invalid header length")
	}
	var b []byte
	if len(r.body) >= align4(rtgenmsgLen) {
		b = r.body[align4(rtgenmsgLen):]
	}
	return r.parseAttrs(b, 16+align4(rtgenmsgLen), netnsaPolicy, v)
}

// nsidPeer reads the peer reference of a request: NETNSA_PID, else
// NETNSA_FD, else (when byID) NETNSA_NSID, and the attribute it came
// from.
func nsidPeer(tb attrs, byID bool) (rtnl.NetnsRef, uint16) {
	var ref rtnl.NetnsRef
	switch {
	case tb.has(netnsaPID):
		v := tb.u32(netnsaPID)
		ref.PID = &v
		return ref, netnsaPID
	case tb.has(netnsaFD):
		v := tb.u32(netnsaFD)
		ref.FD = &v
		return ref, netnsaFD
	case byID && tb.has(netnsaNSID):
		ref.NSID = tb.s32(netnsaNSID)
		return ref, netnsaNSID
	}
	return ref, 0
}

// s32 returns attribute t as an s32, or nil when absent.
func (a attrs) s32(t uint16) *int32 {
	if !a.has(t) {
		return nil
	}
	v := int32(a.u32(t))
	return &v
}

// onAttr reports err against the attribute of type t when its extack
// message is one of msgs (NL_SET_BAD_ATTR before the message), and when
// the request carries t: an absent attribute has no offset, as the
// kernel's NL_SET_BAD_ATTR of a NULL attribute sets none.
func onAttr(err error, tb attrs, t uint16, msgs ...string) error {
	var e *errno.Error
	if !tb.has(t) || !errors.As(err, &e) {
		return err
	}
	for _, m := range msgs {
		if e.Msg == m {
			return badAttr(e, tb.offset(t))
		}
	}
	return err
}

// newNsid serves RTM_NEWNSID.
//
// Kernel: rtnl_net_newid (net/core/net_namespace.c).
func newNsid(r *request) ([]netlink.Message, error) {
	tb, err := nsidAttrs(r, validateLiberal)
	if err != nil {
		return nil, err
	}
	q := rtnl.NsidRequest{Origin: r.origin, NSID: tb.s32(netnsaNSID)}
	var peerAttr uint16
	q.Peer, peerAttr = nsidPeer(tb, false)
	err = r.h.NewNsid(q)
	err = onAttr(err, tb, peerAttr, "Peer netns reference is invalid", "Peer netns already has a nsid assigned")
	return nil, onAttr(err, tb, netnsaNSID, "The specified nsid is already used")
}

// getNsid serves RTM_GETNSID without NLM_F_DUMP: rtnl_net_valid_getid_req's
// checks on a strict socket, then the id.
//
// Kernel: rtnl_net_getid, rtnl_net_valid_getid_req.
func getNsid(r *request) ([]netlink.Message, error) {
	v := validateLiberal
	if r.strict {
		v = validateDeprecatedStrict
	}
	tb, err := nsidAttrs(r, v)
	if err != nil {
		return nil, err
	}
	q := rtnl.NsidGetRequest{Origin: r.origin, TargetNSID: tb.s32(netnsaTargetNSID)}
	q.Strict = r.strict
	q.Unsupported = tb.has(netnsaNone) || tb.has(netnsaCurrentNSID)
	var peerAttr uint16
	q.Peer, peerAttr = nsidPeer(tb, true)
	info, err := r.h.GetNsid(q)
	if err != nil {
		err = onAttr(err, tb, peerAttr, "Peer netns reference is invalid")
		return nil, onAttr(err, tb, netnsaTargetNSID, "Target netns reference is invalid")
	}
	return []netlink.Message{{Header: netlink.Header{Type: netlink.HeaderType(rt.RTMNewNsid)}, Data: nsidMessage(&info)}}, nil
}

// dumpNsids serves an RTM_GETNSID dump: on a strict socket,
// rtnl_valid_dump_net_req's checks and its NETNSA_TARGET_NSID.
//
// Kernel: rtnl_net_dumpid, rtnl_valid_dump_net_req.
func dumpNsids(r *request) (dumper, error) {
	q := rtnl.NsidDumpRequest{Origin: r.origin, Strict: r.strict}
	var tb attrs
	if r.strict {
		tb, q.AttrErr = nsidAttrs(r, validateDeprecatedStrict)
		if q.AttrErr == nil {
			q.TargetNSID = tb.s32(netnsaTargetNSID)
			for t := uint16(netnsaNone); t <= netnsaCurrentNSID; t++ {
				if t != netnsaTargetNSID && tb.has(t) {
					q.Unsupported = &t
					break
				}
			}
		}
	}
	d, err := r.h.DumpNsids(q)
	if err != nil {
		if q.Unsupported != nil {
			err = onAttr(err, tb, *q.Unsupported, "Unsupported attribute in dump request")
		}
		return nil, onAttr(err, tb, netnsaTargetNSID, "Invalid target network namespace id")
	}
	return &nsidDumper{d}, nil
}

// nsidDumper puts an id dump's parts.
type nsidDumper struct{ d *rtnl.NsidDump }

// fill puts the ids from the dump's cursor on.
//
// Kernel: rtnl_net_dumpid_one.
func (d *nsidDumper) fill(p *part) (bool, error) {
	var perr error
	done := d.d.Next(putEach(p, rt.RTMNewNsid, 0,
		func(i *rtnl.NsidInfo, _ int) ([]byte, error) { return nsidMessage(i), nil }, &perr))
	if perr != nil {
		return false, perr
	}
	return done, nil
}

func (d *nsidDumper) close() {}

// notifyNsid builds the RTM_NEWNSID and RTM_DELNSID notifications of
// RTNLGRP_NSID.
//
// Kernel: rtnl_net_notifyid.
func notifyNsid(n rtnl.Notification) ([]byte, uint32, error) {
	if n.Nsid == nil {
		return nil, 0, nil
	}
	return nsidMessage(n.Nsid), uapi.RTNLGRP_NSID, nil
}

// nsidMessage encodes an id as the kernel's messages carry it: an
// AF_UNSPEC rtgenmsg, NETNSA_NSID, and NETNSA_CURRENT_NSID with a target.
//
// Kernel: rtnl_net_fill.
func nsidMessage(i *rtnl.NsidInfo) []byte {
	b := make([]byte, align4(rtgenmsgLen), 20)
	b = appendAttr(b, netnsaNSID, binary.LittleEndian.AppendUint32(nil, uint32(i.NSID)))
	if i.HasCurrent {
		b = appendAttr(b, netnsaCurrentNSID, binary.LittleEndian.AppendUint32(nil, uint32(i.CurrentNSID)))
	}
	return b
}
