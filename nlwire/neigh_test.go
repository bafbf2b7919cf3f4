package nlwire_test

// The kernel-diff sequence of neighbours: RTM_NEWNEIGH with its flags
// (NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE), proxy entries, RTM_GETNEIGH
// as a doit and as dumps (both tables, one family, the proxy entries,
// NDA_IFINDEX and NDA_MASTER filters, strict checks), RTM_DELNEIGH, the
// RTNLGRP_NEIGH notifications, and the kernel's errors (neigh_add,
// neigh_delete, neigh_get, neigh_dump_info in net/core/neighbour.c). Its
// transcript is testdata/neigh.transcript. Each dump has at most one
// entry of a table: the kernel dumps a table in its hash order.

import (
	"encoding/binary"
	"net/netip"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
)

// ndmsg is struct ndmsg.
func ndmsg(family uint8, index int32, state uint16, flags uint8) []byte {
	b := make([]byte, 12)
	b[0] = family
	binary.LittleEndian.PutUint32(b[4:], uint32(index))
	binary.LittleEndian.PutUint16(b[8:], state)
	b[10] = flags
	return b
}

func neighMsg(typ, flags uint16, index int32, state uint16, ntf uint8, dst string, attrs ...W.Attr) netlink.Message {
	fam := uint8(uapi.AF_INET)
	if netip.MustParseAddr(dst).Is6() {
		fam = uapi.AF_INET6
	}
	return W.Msg(typ, flags, ndmsg(fam, index, state, ntf), append([]W.Attr{W.IP(uapi.NDA_DST, dst)}, attrs...)...)
}

const (
	nudPermanent = 0x80
	nudStale     = 0x04
	nudNoARP     = 0x40
	ntfProxy     = 0x08
	ntfRouter    = 0x80
	replaceFlags = uapi.NLM_F_REQUEST | uapi.NLM_F_ACK | uapi.NLM_F_CREATE | uapi.NLM_F_REPLACE
)

func lladdr(s string) W.Attr { return W.MAC(uapi.NDA_LLADDR, s) }

func init() {
	sequences = append(sequences, W.Seq{
		Name:    "neigh",
		Doc:     "neighbours: add, replace, proxy, get, dumps with filters and strict checks, delete, notifications, errors",
		Options: extAck,
		Groups:  []uint32{uapi.RTNLGRP_NEIGH},
		Steps: steps(
			note("the pair stays down: a device up sends the IPv6 packets that make NOARP entries", send(vethPair())),
			addr4(uapi.RTM_NEWADDR, W.Create, ifVeth0, "10.0.0.1", 24),
			neighMsg(uapi.RTM_NEWNEIGH, W.Create, ifVeth0, nudPermanent, 0, "10.0.0.2", lladdr("02:00:00:00:00:02")),
			note("EEXIST", neighMsg(uapi.RTM_NEWNEIGH, W.Create, ifVeth0, nudPermanent, 0, "10.0.0.2", lladdr("02:00:00:00:00:02"))),
			note("replace: a new address and state", neighMsg(uapi.RTM_NEWNEIGH, replaceFlags, ifVeth0, nudStale, ntfRouter, "10.0.0.2", lladdr("02:00:00:00:00:22"))),
			note("no NLM_F_CREATE: ENOENT", neighMsg(uapi.RTM_NEWNEIGH, W.Ack|uapi.NLM_F_REPLACE, ifVeth0, nudStale, 0, "10.0.0.3", lladdr("02:00:00:00:00:03"))),
			note("a short link-layer address", neighMsg(uapi.RTM_NEWNEIGH, W.Create, ifVeth0, nudPermanent, 0, "10.0.0.6", W.Attr{Type: uapi.NDA_LLADDR, Data: []byte{2}})),
			note("no device", neighMsg(uapi.RTM_NEWNEIGH, W.Create, 0, nudPermanent, 0, "10.0.0.6", lladdr("02:00:00:00:00:06"))),
			note("an unknown device", neighMsg(uapi.RTM_NEWNEIGH, W.Create, 99, nudPermanent, 0, "10.0.0.6", lladdr("02:00:00:00:00:06"))),
			note("no NDA_DST", W.Msg(uapi.RTM_NEWNEIGH, W.Create, ndmsg(uapi.AF_INET, ifVeth0, nudPermanent, 0))),
			note("an IPv4 address for AF_INET6", W.Msg(uapi.RTM_NEWNEIGH, W.Create, ndmsg(uapi.AF_INET6, ifVeth0, nudPermanent, 0), W.IP(uapi.NDA_DST, "10.0.0.7"))),
			note("a family without a table (AF_PACKET)", W.Msg(uapi.RTM_NEWNEIGH, W.Create, ndmsg(17, ifVeth0, nudPermanent, 0), W.IP(uapi.NDA_DST, "10.0.0.7"))),
			neighMsg(uapi.RTM_NEWNEIGH, W.Create, ifVeth0, nudPermanent, ntfRouter, "2001:db8::2", lladdr("02:00:00:00:00:62")),
			note("a proxy entry: no notification", neighMsg(uapi.RTM_NEWNEIGH, W.Create, ifVeth0, nudPermanent, ntfProxy, "10.0.0.100")),
			neighMsg(uapi.RTM_GETNEIGH, W.Req, ifVeth0, 0, 0, "10.0.0.2"),
			neighMsg(uapi.RTM_GETNEIGH, W.Req, ifVeth0, 0, ntfProxy, "10.0.0.100"),
			note("get: not found", neighMsg(uapi.RTM_GETNEIGH, W.Req, ifVeth0, 0, 0, "10.0.0.9")),
			note("get: no device", neighMsg(uapi.RTM_GETNEIGH, W.Req, 0, 0, 0, "10.0.0.2")),
			note("get: a state in the header", neighMsg(uapi.RTM_GETNEIGH, W.Req, ifVeth0, nudStale, 0, "10.0.0.2")),
			note("dump both tables", W.Msg(uapi.RTM_GETNEIGH, W.Dump, ndmsg(uapi.AF_UNSPEC, 0, 0, 0))),
			W.Msg(uapi.RTM_GETNEIGH, W.Dump, ndmsg(uapi.AF_INET6, 0, 0, 0)),
			note("the proxy entries", W.Msg(uapi.RTM_GETNEIGH, W.Dump, ndmsg(uapi.AF_INET, 0, 0, ntfProxy))),
			note("NDA_IFINDEX", W.Msg(uapi.RTM_GETNEIGH, W.Dump, ndmsg(uapi.AF_INET, 0, 0, 0), W.U32(uapi.NDA_IFINDEX, ifVeth1))),
			note("NDA_MASTER: no master", W.Msg(uapi.RTM_GETNEIGH, W.Dump, ndmsg(uapi.AF_INET, 0, 0, 0), W.U32(uapi.NDA_MASTER, 0xffffffff))),
			note("an ifindex in a dump's header (not strict)", W.Msg(uapi.RTM_GETNEIGH, W.Dump, ndmsg(uapi.AF_INET, ifVeth1, 0, 0))),
			option(netlink.GetStrictCheck, true),
			note("strict: an ifindex in the header", W.Msg(uapi.RTM_GETNEIGH, W.Dump, ndmsg(uapi.AF_INET, ifVeth1, 0, 0))),
			note("strict: a flag other than NTF_PROXY", W.Msg(uapi.RTM_GETNEIGH, W.Dump, ndmsg(uapi.AF_INET, 0, 0, ntfRouter))),
			note("strict: NDA_DST", W.Msg(uapi.RTM_GETNEIGH, W.Dump, ndmsg(uapi.AF_INET, 0, 0, 0), W.IP(uapi.NDA_DST, "10.0.0.2"))),
			W.Msg(uapi.RTM_GETNEIGH, W.Dump, ndmsg(uapi.AF_INET, 0, 0, 0), W.U32(uapi.NDA_IFINDEX, ifVeth0)),
			option(netlink.GetStrictCheck, false),
			note("NOARP without an address: the entry stays in NUD_NONE", neighMsg(uapi.RTM_NEWNEIGH, W.Create, ifVeth0, nudNoARP, 0, "10.0.0.5")),
			note("delete: NEWNEIGH (failed), then DELNEIGH", neighMsg(uapi.RTM_DELNEIGH, W.Ack, ifVeth0, 0, 0, "10.0.0.2")),
			neighMsg(uapi.RTM_DELNEIGH, W.Ack, ifVeth0, 0, 0, "10.0.0.2"),
			neighMsg(uapi.RTM_DELNEIGH, W.Ack, ifVeth0, 0, 0, "10.0.0.5"),
			note("delete without a device", neighMsg(uapi.RTM_DELNEIGH, W.Ack, 0, 0, 0, "2001:db8::2")),
			neighMsg(uapi.RTM_DELNEIGH, W.Ack, ifVeth0, 0, ntfProxy, "10.0.0.100"),
			neighMsg(uapi.RTM_DELNEIGH, W.Ack, ifVeth0, 0, ntfProxy, "10.0.0.100"),
			note("deleting the device flushes its entries", W.Msg(uapi.RTM_DELLINK, W.Ack, W.IfInfo{Index: ifVeth0}.Bytes())),
		),
	})
	sequences = append(sequences, W.Seq{
		Name:    "neigh_nolocal",
		Doc:     "neighbours in a namespace with no IPv4 address: no local table, so every IPv4 neighbour is RTN_BROADCAST and NOARP with the broadcast address",
		Options: extAck,
		Groups:  []uint32{uapi.RTNLGRP_NEIGH},
		Steps: steps(
			send(vethPair()),
			note("NUD_STALE without an address: the broadcast address is the entry's", neighMsg(uapi.RTM_NEWNEIGH, W.Create, ifVeth0, nudStale, 0, "10.0.0.2")),
			neighMsg(uapi.RTM_GETNEIGH, W.Req, ifVeth0, 0, 0, "10.0.0.2"),
			addr4(uapi.RTM_NEWADDR, W.Create, ifVeth0, "10.0.0.1", 24),
			note("with the local table: unicast, and no address to take", neighMsg(uapi.RTM_NEWNEIGH, W.Create, ifVeth0, nudStale, 0, "10.0.0.3")),
			note("the device's own address: RTN_LOCAL", neighMsg(uapi.RTM_NEWNEIGH, W.Create, ifVeth0, nudPermanent, 0, "10.0.0.1", lladdr("02:00:00:00:00:01"))),
			neighMsg(uapi.RTM_GETNEIGH, W.Req, ifVeth0, 0, 0, "10.0.0.1"),
		),
	})
}
