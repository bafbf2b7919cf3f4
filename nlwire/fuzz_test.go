package nlwire

import (
	"strings"
	"testing"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// fuzzSetup is the namespace every FuzzServe input runs against: veths,
// addresses, routes, nexthops and rules, made with ip.
var fuzzSetup = []string{
	"link set lo up", "link add veth0 type veth peer name veth1", "link set veth0 up", "link set veth1 up",
	"link add br0 type bridge", "link set veth1 master br0",
	"addr add 10.0.0.1/24 dev veth0", "addr add 2001:db8::1/64 dev veth0",
	"route add 192.0.2.0/24 via 10.0.0.2", "route add 198.51.100.0/24 dev veth0 table 100 metric 5",
	"nexthop add id 1 via 10.0.0.3 dev veth0", "nexthop add id 3 via 10.0.0.4 dev veth0", "nexthop add id 2 blackhole",
	"nexthop add id 10 group 1/3",
	"route add 203.0.113.0/24 nhid 10",
	"rule add pref 100 from 10.1.0.0/16 table 100", "rule add pref 200 fwmark 7 goto 300",
}

// fuzzSeeds are valid requests of each message type the socket serves,
// and a few malformed ones.
func fuzzSeeds() [][]byte {
	ifi := make([]byte, 16)
	ifi3 := append([]byte{}, ifi...)
	ifi3[4] = 3
	attr := func(typ uint16, p []byte) []byte { return appendAttr(nil, typ, p) }
	u32 := func(v uint32) []byte { return le.AppendUint32(nil, v) }
	rtm := func(fam, dst byte, table byte) []byte { return []byte{fam, dst, 0, 0, table, 3, 0, 1, 0, 0, 0, 0} }
	rule := []byte{uapi.AF_INET, 0, 0, 0, 100, 0, 0, 1, 0, 0, 0, 0}
	nh := []byte{uapi.AF_INET, 0, 0, 0, 0, 0, 0, 0}
	ifa := []byte{uapi.AF_INET, 24, 0, 0, 3, 0, 0, 0}
	m := func(typ rt.MsgType, flags uint16, body ...[]byte) []byte {
		var b []byte
		for _, p := range body {
			b = append(b, p...)
		}
		return msg(uint16(typ), flags, 1, b)
	}
	create := uint16(req | ack | uapi.NLM_F_CREATE | uapi.NLM_F_EXCL)
	return [][]byte{
		m(rt.RTMGetLink, req|dump, ifi),
		m(rt.RTMGetLink, req, ifi3),
		m(rt.RTMGetLink, req, ifi, attr(uapi.IFLA_IFNAME, []byte("veth0\x00"))),
		m(rt.RTMNewLink, create, ifi, attr(uapi.IFLA_IFNAME, []byte("d0\x00")),
			appendAttr(nil, uapi.IFLA_LINKINFO|nlaFNested, attr(uapi.IFLA_INFO_KIND, []byte("dummy\x00")))),
		m(rt.RTMNewLink, req|ack, ifi3, attr(uapi.IFLA_MTU, u32(1400))),
		m(rt.RTMDelLink, req|ack, ifi3),
		m(rt.RTMGetAddr, req|dump, []byte{0, 0, 0, 0, 0, 0, 0, 0}),
		m(rt.RTMNewAddr, create, ifa, attr(uapi.IFA_LOCAL, []byte{10, 0, 9, 1})),
		m(rt.RTMDelAddr, req|ack, ifa, attr(uapi.IFA_LOCAL, []byte{10, 0, 0, 1})),
		m(rt.RTMGetRoute, req|dump, rtm(uapi.AF_INET, 0, 0)),
		m(rt.RTMGetRoute, req, rtm(uapi.AF_INET, 32, 0), attr(uapi.RTA_DST, []byte{192, 0, 2, 9})),
		m(rt.RTMNewRoute, create, rtm(uapi.AF_INET, 24, 254), attr(uapi.RTA_DST, []byte{192, 0, 9, 0}), attr(uapi.RTA_OIF, u32(3))),
		m(rt.RTMNewRoute, create, rtm(uapi.AF_INET6, 64, 254), attr(uapi.RTA_DST, make([]byte, 16)), attr(uapi.RTA_OIF, u32(3))),
		m(rt.RTMDelRoute, req|ack, rtm(uapi.AF_INET, 24, 254), attr(uapi.RTA_DST, []byte{192, 0, 2, 0})),
		m(rt.RTMGetRule, req|dump, rule),
		m(rt.RTMNewRule, create, rule, attr(uapi.FRA_PRIORITY, u32(150)), attr(uapi.FRA_TABLE, u32(100))),
		m(rt.RTMDelRule, req|ack, rule, attr(uapi.FRA_PRIORITY, u32(100))),
		m(rt.RTMGetNexthop, req|dump, nh),
		m(rt.RTMGetNexthop, req, nh, attr(uapi.NHA_ID, u32(10))),
		m(rt.RTMNewNexthop, create, nh, attr(uapi.NHA_ID, u32(20)), attr(uapi.NHA_OIF, u32(3))),
		m(rt.RTMDelNexthop, req|ack, nh, attr(uapi.NHA_ID, u32(1))),
		append(m(rt.RTMGetLink, req|ack, ifi3), m(rt.RTMGetRoute, req|dump, rtm(0, 0, 0))...),
		raw(100, uint16(rt.RTMNewLink), req|ack, 1, ifi),
		m(200, req, ifi),
		m(rt.RTMGetNeigh, req|dump, ifi),
		make([]byte, 12),
	}
}

// FuzzServe sends arbitrary datagrams to a socket on a namespace with
// devices, addresses, routes, nexthops and rules: nothing may panic, and
// every datagram the socket answers with must parse as netlink messages
// exactly, each with a sane header; and the kernel's invariants hold
// afterwards.
func FuzzServe(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, b []byte, strict bool) {
		k := rtnl.MustNewKernel(rtnl.After)
		ip := iproute.New(k, k.World().NewTask("ip"))
		for _, c := range fuzzSetup {
			if err := ip.Run(strings.Fields(c)...); err != nil {
				t.Fatalf("%s: %v", c, err)
			}
		}
		s := NewSocket(k.InitNet())
		defer s.Close()
		for _, o := range []netlink.ConnOption{netlink.ExtendedAcknowledge, netlink.NoENOBUFS} {
			if err := s.SetOption(o, true); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetOption(netlink.GetStrictCheck, strict); err != nil {
			t.Fatal(err)
		}
		if err := s.JoinGroup(uapi.RTNLGRP_LINK); err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 || len(b) > 1<<16 {
			return
		}
		if err := s.sendRaw(b); err != nil {
			t.Fatalf("send: %v", err)
		}
		for pending(s) > 0 {
			d, err := s.recvRaw()
			if err != nil {
				t.Fatalf("receive: %v", err)
			}
			checkDatagram(t, d, s.PID())
		}
		if err := k.CheckInvariants(); err != nil {
			t.Fatalf("the kernel's invariants after the datagram: %v", err)
		}
	})
}

// checkDatagram fails t unless d is a whole number of well-formed netlink
// messages: lengths at least a header, 4-aligned, covering d exactly; and
// an NLMSG_ERROR's payload at least its error code and echoed header.
func checkDatagram(t *testing.T, d []byte, pid uint32) {
	t.Helper()
	if len(d) == 0 {
		t.Fatal("an empty datagram")
	}
	for len(d) > 0 {
		if len(d) < nlmsgHdrLen {
			t.Fatalf("a trailing %d bytes", len(d))
		}
		l := int(le.Uint32(d))
		if l < nlmsgHdrLen || l > len(d) || l%4 != 0 {
			t.Fatalf("a message length %d in %d bytes", l, len(d))
		}
		typ := le.Uint16(d[4:])
		port := le.Uint32(d[12:])
		switch typ {
		case uapi.NLMSG_ERROR:
			if l < nlmsgHdrLen+4+nlmsgHdrLen || port != pid {
				t.Fatalf("a bad NLMSG_ERROR: %x", d[:l])
			}
			flags := le.Uint16(d[6:])
			off := nlmsgHdrLen + 4 + nlmsgHdrLen
			if flags&uapi.NLM_F_CAPPED == 0 {
				off = nlmsgHdrLen + 4 + align4(int(le.Uint32(d[nlmsgHdrLen+4:])))
			}
			if off > l {
				t.Fatalf("an NLMSG_ERROR echoing more than it holds: %x", d[:l])
			}
			if flags&uapi.NLM_F_ACK_TLVS != 0 {
				ad, err := netlink.NewAttributeDecoder(d[off:l])
				if err != nil {
					t.Fatalf("the TLVs of %x: %v", d[:l], err)
				}
				for ad.Next() {
				}
				if err := ad.Err(); err != nil {
					t.Fatalf("the TLVs of %x: %v", d[:l], err)
				}
			} else if off != l {
				t.Fatalf("bytes after the echo without NLM_F_ACK_TLVS: %x", d[:l])
			}
		case uapi.NLMSG_DONE:
			if l < nlmsgHdrLen+4 {
				t.Fatalf("a short NLMSG_DONE: %x", d[:l])
			}
		default:
			if typ < uapi.RTM_BASE || typ > uapi.RTM_MAX {
				t.Fatalf("a message of type %d", typ)
			}
		}
		d = d[l:]
	}
}
