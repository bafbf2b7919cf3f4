// The address messages on the wire: struct ifaddrmsg, RTM_NEWADDR,
// RTM_DELADDR and RTM_GETADDR (doit and dumpit) parsed into rtnl's
// address requests, and an address as a message. Kernel:
// inet_rtm_newaddr, inet_rtm_deladdr, inet_dump_ifaddr, inet_fill_ifaddr
// (net/ipv4/devinet.c); inet6_rtm_newaddr, inet6_rtm_deladdr,
// inet6_rtm_getaddr, inet6_dump_ifaddr, inet6_fill_ifaddr
// (net/ipv6/addrconf.c).

package nlwire

import (
	"encoding/binary"
	"net/netip"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// ifaddrmsgLen is sizeof(struct ifaddrmsg).
const ifaddrmsgLen = 8

// ifaddrmsg is struct ifaddrmsg, the fixed header of the address messages.
type ifaddrmsg struct {
	family, prefixlen, flags, scope uint8
	index                           uint32
}

func parseIfaddrmsg(b []byte) ifaddrmsg {
	return ifaddrmsg{family: b[0], prefixlen: b[1], flags: b[2], scope: b[3], index: binary.LittleEndian.Uint32(b[4:])}
}

func (m ifaddrmsg) marshal() []byte {
	b := []byte{m.family, m.prefixlen, m.flags, m.scope, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[4:], m.index)
	return b
}

// ifaCacheinfoLen is sizeof(struct ifa_cacheinfo).
const ifaCacheinfoLen = 16

// ifaIPv4Policy is ifa_ipv4_policy (net/ipv4/devinet.c).
var ifaIPv4Policy = policy{attrs: []attrPolicy{
	uapi.IFA_ADDRESS: {typ: nlaU32}, uapi.IFA_LOCAL: {typ: nlaU32}, uapi.IFA_LABEL: {typ: nlaString, len: netdev.IFNAMSIZ - 1},
	uapi.IFA_BROADCAST: {typ: nlaU32}, uapi.IFA_ANYCAST: {}, uapi.IFA_CACHEINFO: {typ: nlaUnspec, len: ifaCacheinfoLen},
	uapi.IFA_MULTICAST: {}, uapi.IFA_FLAGS: {typ: nlaU32}, uapi.IFA_RT_PRIORITY: {typ: nlaU32},
	uapi.IFA_TARGET_NETNSID: {typ: nlaS32}, uapi.IFA_PROTO: {typ: nlaU8},
}}

// ifaIPv6Policy is ifa_ipv6_policy (net/ipv6/addrconf.c).
var ifaIPv6Policy = policy{attrs: []attrPolicy{
	uapi.IFA_ADDRESS: {typ: nlaUnspec, len: 16}, uapi.IFA_LOCAL: {typ: nlaUnspec, len: 16}, uapi.IFA_LABEL: {},
	uapi.IFA_BROADCAST: {}, uapi.IFA_ANYCAST: {}, uapi.IFA_CACHEINFO: {typ: nlaUnspec, len: ifaCacheinfoLen},
	uapi.IFA_MULTICAST: {}, uapi.IFA_FLAGS: {typ: nlaUnspec, len: 4}, uapi.IFA_RT_PRIORITY: {typ: nlaUnspec, len: 4},
	uapi.IFA_TARGET_NETNSID: {typ: nlaS32}, uapi.IFA_PROTO: {typ: nlaU8},
}}

func init() {
	register(uapi.AF_INET, rt.RTMNewAddr, handler{do: newAddr4})
	register(uapi.AF_INET, rt.RTMDelAddr, handler{do: delAddr4})
	register(uapi.AF_INET, rt.RTMGetAddr, handler{dump: dumpAddrs4})
	register(uapi.AF_INET6, rt.RTMNewAddr, handler{do: newAddr6})
	register(uapi.AF_INET6, rt.RTMDelAddr, handler{do: delAddr6})
	register(uapi.AF_INET6, rt.RTMGetAddr, handler{do: getAddr6, dump: dumpAddrs6})
	register(uapi.AF_UNSPEC, rt.RTMGetAddr, handler{dump: dumpAddrsAll})
	registerNotify(rt.RTMNewAddr, addrNotify)
	registerNotify(rt.RTMDelAddr, addrNotify)
}

// addrNotify builds an RTM_NEWADDR or RTM_DELADDR notification for
// RTNLGRP_IPV4_IFADDR or RTNLGRP_IPV6_IFADDR. The lifetimes are those the
// notification carries.
//
// Kernel: rtmsg_ifa (net/ipv4/devinet.c), inet6_ifa_notify
// (net/ipv6/addrconf.c).
func addrNotify(n rtnl.Notification) ([]byte, uint32, error) {
	if n.Addr == nil {
		return nil, 0, nil
	}
	if n.Addr.Prefix.Addr().Is4() {
		return addrMessage(*n.Addr), uapi.RTNLGRP_IPV4_IFADDR, nil
	}
	return addrMessage(*n.Addr), uapi.RTNLGRP_IPV6_IFADDR, nil
}

// centiseconds is a virtual time as cstamp_delta reports it: hundredths of
// a second since the simulation began (the kernel's since boot).
func centiseconds(t sim.Time) uint32 {
	return uint32(time.Duration(t) / (10 * time.Millisecond))
}

// addrMessage is the payload of an RTM_NEWADDR message describing a: its
// ifaddrmsg and attributes in the kernel's order. IFA_CACHEINFO's cstamp
// is when the address was created and its tstamp when its lifetimes were
// last set, in hundredths of a second of virtual time.
//
// Kernel: inet_fill_ifaddr (net/ipv4/devinet.c), inet6_fill_ifaddr
// (net/ipv6/addrconf.c).
func addrMessage(a rtnl.AddrInfo) []byte {
	fam := uint8(uapi.AF_INET)
	if a.Prefix.Addr().Is6() {
		fam = uapi.AF_INET6
	}
	hdr := ifaddrmsg{family: fam, prefixlen: uint8(a.Prefix.Bits()), flags: uint8(a.Flags), scope: uint8(a.Scope), index: uint32(a.Index)}.marshal()
	ae := netlink.NewAttributeEncoder()
	if a.TargetNetnsID != nil {
		ae.Int32(uapi.IFA_TARGET_NETNSID, *a.TargetNetnsID)
	}
	ci := make([]byte, ifaCacheinfoLen)
	binary.LittleEndian.PutUint32(ci[0:], a.PreferredLft)
	binary.LittleEndian.PutUint32(ci[4:], a.ValidLft)
	binary.LittleEndian.PutUint32(ci[8:], centiseconds(a.Created()))
	binary.LittleEndian.PutUint32(ci[12:], centiseconds(a.Stamp()))
	if fam == uapi.AF_INET {
		if addr := a.Address(); !addr.IsUnspecified() {
			ae.Bytes(uapi.IFA_ADDRESS, addr.AsSlice())
		}
		if l := a.Prefix.Addr(); !l.IsUnspecified() {
			ae.Bytes(uapi.IFA_LOCAL, l.AsSlice())
		}
		if a.Broadcast.IsValid() && !a.Broadcast.IsUnspecified() {
			ae.Bytes(uapi.IFA_BROADCAST, a.Broadcast.AsSlice())
		}
		if a.Label != "" {
			ae.String(uapi.IFA_LABEL, a.Label)
		}
		if a.Proto != 0 {
			ae.Uint8(uapi.IFA_PROTO, a.Proto)
		}
		ae.Uint32(uapi.IFA_FLAGS, uint32(a.Flags))
		if a.Metric != 0 {
			ae.Uint32(uapi.IFA_RT_PRIORITY, a.Metric)
		}
		ae.Bytes(uapi.IFA_CACHEINFO, ci)
	} else {
		if a.Peer.IsValid() && !a.Peer.IsUnspecified() {
			ae.Bytes(uapi.IFA_LOCAL, a.Prefix.Addr().AsSlice())
			ae.Bytes(uapi.IFA_ADDRESS, a.Peer.AsSlice())
		} else {
			ae.Bytes(uapi.IFA_ADDRESS, a.Prefix.Addr().AsSlice())
		}
		if a.Metric != 0 {
			ae.Uint32(uapi.IFA_RT_PRIORITY, a.Metric)
		}
		ae.Bytes(uapi.IFA_CACHEINFO, ci)
		ae.Uint32(uapi.IFA_FLAGS, uint32(a.Flags))
		if a.Proto != 0 {
			ae.Uint8(uapi.IFA_PROTO, a.Proto)
		}
	}
	b, err := ae.Encode()
	if err != nil {
		panic("nlwire: encoding an address: " + err.Error())
	}
	return append(hdr, b...)
}

// parseAddrRequest checks an address request's length and parses its
// attributes as nlmsg_parse_deprecated does.
func parseAddrRequest(r *request, pol policy) (ifaddrmsg, attrs, error) {
	if len(r.body) < ifaddrmsgLen {
		return ifaddrmsg{}, attrs{}, errno.New(syscall.EINVAL, "Invalid header length")
	}
	a, err := parseAttrs(r.body[ifaddrmsgLen:], 16+ifaddrmsgLen, pol, validateLiberal)
	return parseIfaddrmsg(r.body), a, err
}

// lifetimes reads IFA_CACHEINFO's ifa_prefered and ifa_valid.
func lifetimes(a attrs) (valid, preferred uint32, ok bool) {
	ci := a.get(uapi.IFA_CACHEINFO)
	if ci == nil {
		return 0, 0, false
	}
	return binary.LittleEndian.Uint32(ci[4:]), binary.LittleEndian.Uint32(ci[0:]), true
}

// newAddr4 serves RTM_NEWADDR for AF_INET.
//
// Kernel: inet_rtm_newaddr, inet_validate_rtm, inet_rtm_to_ifa
// (net/ipv4/devinet.c).
func newAddr4(r *request) ([]netlink.Message, error) {
	m, a, err := parseAddrRequest(r, ifaIPv4Policy)
	if err != nil {
		return nil, err
	}
	if m.prefixlen > 32 {
		return nil, errno.New(syscall.EINVAL, "ipv4: Invalid prefix length")
	}
	if !a.has(uapi.IFA_LOCAL) {
		return nil, errno.New(syscall.EINVAL, "ipv4: Local address is not supplied")
	}
	valid, preferred, hasCI := lifetimes(a)
	if hasCI && (valid == 0 || preferred > valid) {
		return nil, errno.New(syscall.EINVAL, "ipv4: address lifetime invalid")
	}
	local := inAddr4(a.get(uapi.IFA_LOCAL))
	if local.IsUnspecified() {
		return nil, nil // inet_rtm_newaddr: nothing to add, no error
	}
	if a.has(uapi.IFA_PROTO) && a.u8(uapi.IFA_PROTO) != 0 {
		return nil, badAttr(errno.New(syscall.EOPNOTSUPP, "IFA_PROTO is not modelled by netsim"), a.offset(uapi.IFA_PROTO))
	}
	ad := netdev.Addr{
		Prefix: netip.PrefixFrom(local, int(m.prefixlen)),
		Label:  a.str(uapi.IFA_LABEL),
		Scope:  netdev.Scope(m.scope),
		Flags:  netdev.AddrFlags(m.flags),
		Metric: a.u32(uapi.IFA_RT_PRIORITY),
	}
	if a.has(uapi.IFA_FLAGS) {
		ad.Flags = netdev.AddrFlags(a.u32(uapi.IFA_FLAGS))
	}
	if a.has(uapi.IFA_ADDRESS) {
		ad.Peer = inAddr4(a.get(uapi.IFA_ADDRESS))
	}
	if a.has(uapi.IFA_BROADCAST) {
		ad.Broadcast = inAddr4(a.get(uapi.IFA_BROADCAST))
	}
	if hasCI {
		ad.ValidLft, ad.PreferredLft = valid, preferred
	}
	return nil, newAddr(r, m, ad, "ipv4: Device not found")
}

// newAddr makes the rtnl request of an RTM_NEWADDR, with its NLM flags.
func newAddr(r *request, m ifaddrmsg, ad netdev.Addr, noDev string) error {
	err := r.h.NewAddr(rtnl.AddrRequest{Origin: r.origin, Flags: rt.NLMFlags(r.hdr.Flags) & (rt.NLMCreate | rt.NLMExcl | rt.NLMReplace | rt.NLMAppend),
		LinkIndex: netdev.IfIndex(m.index), Addr: ad})
	return withMessage(err, syscall.ENODEV, noDev)
}

// delAddr4 serves RTM_DELADDR for AF_INET: the first address of the
// device that matches every one of IFA_LOCAL, IFA_LABEL and IFA_ADDRESS
// (with ifa_prefixlen) the request carries; a request with none of them
// deletes the device's first address.
//
// Kernel: inet_rtm_deladdr (net/ipv4/devinet.c).
func delAddr4(r *request) ([]netlink.Message, error) {
	m, a, err := parseAddrRequest(r, ifaIPv4Policy)
	if err != nil {
		return nil, err
	}
	var match rtnl.Inet4DelMatch
	if a.has(uapi.IFA_LOCAL) {
		l := inAddr4(a.get(uapi.IFA_LOCAL))
		match.Local = &l
	}
	if a.has(uapi.IFA_LABEL) {
		// nla_strcmp: the attribute's bytes less one trailing NUL.
		b := a.get(uapi.IFA_LABEL)
		if n := len(b); n > 0 && b[n-1] == 0 {
			b = b[:n-1]
		}
		l := string(b)
		match.Label = &l
	}
	if a.has(uapi.IFA_ADDRESS) {
		ad := inAddr4(a.get(uapi.IFA_ADDRESS))
		match.Address, match.PrefixLen = &ad, int(m.prefixlen)
	}
	err = r.h.DelAddr(rtnl.AddrRequest{Origin: r.origin, LinkIndex: netdev.IfIndex(m.index), Match4: &match})
	return nil, withMessage(err, syscall.ENODEV, "ipv4: Device not found")
}

// addr6 reads extract_addr's address and peer: IFA_LOCAL if present (with
// IFA_ADDRESS as its peer if it differs), else IFA_ADDRESS.
func addr6(a attrs) (addr, peer netip.Addr, ok bool) {
	if b := a.get(uapi.IFA_ADDRESS); b != nil {
		addr, ok = inAddr6(b), true
	}
	if b := a.get(uapi.IFA_LOCAL); b != nil {
		local := inAddr6(b)
		if ok && addr != local {
			peer = addr
		}
		addr, ok = local, true
	}
	return addr, peer, ok
}

// newAddr6 serves RTM_NEWADDR for AF_INET6.
//
// Kernel: inet6_rtm_newaddr, inet6_addr_add (net/ipv6/addrconf.c).
func newAddr6(r *request) ([]netlink.Message, error) {
	m, a, err := parseAddrRequest(r, ifaIPv6Policy)
	if err != nil {
		return nil, err
	}
	addr, peer, ok := addr6(a)
	if !ok {
		return nil, errInval
	}
	if a.has(uapi.IFA_PROTO) && a.u8(uapi.IFA_PROTO) != 0 {
		return nil, badAttr(errno.New(syscall.EOPNOTSUPP, "IFA_PROTO is not modelled by netsim"), a.offset(uapi.IFA_PROTO))
	}
	flags := uint32(m.flags)
	if a.has(uapi.IFA_FLAGS) {
		flags = a.u32(uapi.IFA_FLAGS)
	}
	valid, preferred, hasCI := lifetimes(a)
	if hasCI && (valid == 0 || preferred > valid) {
		return nil, errno.New(syscall.EINVAL, "ipv6: address lifetime invalid")
	}
	if flags&uapi.IFA_F_MCAUTOJOIN != 0 {
		return nil, errno.New(syscall.EOPNOTSUPP, "IFA_F_MCAUTOJOIN is not modelled by netsim")
	}
	ad := netdev.Addr{
		Prefix: netip.PrefixFrom(addr, int(m.prefixlen)),
		Peer:   peer,
		Flags:  netdev.AddrFlags(flags) & (netdev.AddrNoDAD | netdev.AddrHomeAddress | netdev.AddrManageTempAddr | netdev.AddrNoPrefixRoute),
		Metric: a.u32(uapi.IFA_RT_PRIORITY),
	}
	if hasCI {
		ad.ValidLft, ad.PreferredLft = valid, preferred
	}
	err = newAddr(r, m, ad, "ipv6: Unable to find the interface")
	if m.prefixlen > 128 && errno.Of(err) == syscall.EINVAL {
		return nil, errno.New(syscall.EINVAL, "ipv6: Invalid prefix length")
	}
	return nil, err
}

// delAddr6 serves RTM_DELADDR for AF_INET6.
//
// Kernel: inet6_rtm_deladdr → inet6_addr_del (net/ipv6/addrconf.c).
func delAddr6(r *request) ([]netlink.Message, error) {
	m, a, err := parseAddrRequest(r, ifaIPv6Policy)
	if err != nil {
		return nil, err
	}
	addr, _, ok := addr6(a)
	if !ok {
		return nil, errInval
	}
	if m.prefixlen > 128 {
		return nil, errno.New(syscall.EINVAL, "ipv6: Invalid prefix length")
	}
	err = r.h.DelAddr(rtnl.AddrRequest{Origin: r.origin, LinkIndex: netdev.IfIndex(m.index), Addr: netdev.Addr{Prefix: netip.PrefixFrom(addr, int(m.prefixlen))}})
	return nil, withMessage(err, syscall.ENODEV, "ipv6: Unable to find the interface")
}

// getAddr6 serves RTM_GETADDR without NLM_F_DUMP for AF_INET6: the
// address extract_addr reads (IFA_LOCAL, else IFA_ADDRESS), on the device
// ifa_index names if it names one (an unknown ifindex looks on every
// device), answered as a dump would describe it.
//
// Kernel: inet6_rtm_getaddr, inet6_rtm_valid_getaddr_req,
// ipv6_get_ifaddr (net/ipv6/addrconf.c).
func getAddr6(r *request) ([]netlink.Message, error) {
	if len(r.body) < ifaddrmsgLen {
		return nil, errno.New(syscall.EINVAL, "ipv6: Invalid header for get address request")
	}
	m := parseIfaddrmsg(r.body)
	req := rtnl.AddrGetRequest{Origin: r.origin, LinkIndex: netdev.IfIndex(m.index), GetChecks: rtnl.GetChecks{Strict: r.strict}}
	v := validateLiberal
	if r.strict {
		req.BadHeader = m.prefixlen != 0 || m.flags != 0 || m.scope != 0
		v = validateDeprecatedStrict
	}
	a, err := parseAttrs(r.body[ifaddrmsgLen:], 16+ifaddrmsgLen, ifaIPv6Policy, v)
	req.AttrErr = err
	if err != nil {
		a = attrs{}
	}
	for t, b := range a.present() {
		if b != nil && t != uapi.IFA_TARGET_NETNSID && t != uapi.IFA_ADDRESS && t != uapi.IFA_LOCAL {
			req.Unsupported = true
		}
	}
	if a.has(uapi.IFA_TARGET_NETNSID) {
		id := int32(a.u32(uapi.IFA_TARGET_NETNSID))
		req.TargetNSID = &id
	}
	req.Addr, _, _ = addr6(a)
	ai, err := r.h.GetAddr(req)
	if err != nil {
		return nil, err
	}
	return []netlink.Message{{
		Header: netlink.Header{Type: netlink.HeaderType(rt.RTMNewAddr)},
		Data:   addrMessage(ai),
	}}, nil
}

// addrDumpReq parses an address dump request into its rtnl request, which
// checks it. prefix is the extack prefix of the family ("ipv4: ",
// "ipv6: ") for a header too short to read.
func addrDumpReq(r *request, fam rt.Family, pol policy, prefix string) (rtnl.AddrDumpRequest, error) {
	req := rtnl.AddrDumpRequest{Origin: r.origin, Family: fam, Strict: r.strict}
	if !r.strict {
		return req, nil
	}
	if len(r.body) < ifaddrmsgLen {
		return req, errno.New(syscall.EINVAL, prefix+"Invalid header for address dump request")
	}
	m := parseIfaddrmsg(r.body)
	req.BadHeader = m.prefixlen != 0 || m.flags != 0 || m.scope != 0
	req.LinkIndex = netdev.IfIndex(m.index)
	var a attrs
	a, req.AttrErr = parseAttrs(r.body[ifaddrmsgLen:], 16+ifaddrmsgLen, pol, validateDeprecatedStrict)
	pos := 0
	for t, v := range a.present() {
		if v == nil {
			continue
		}
		pos++
		if t == uapi.IFA_TARGET_NETNSID {
			req.TargetNetnsIDAt, req.TargetNSID = pos, int32(a.u32(uapi.IFA_TARGET_NETNSID))
		} else if req.UnsupportedAt == 0 {
			req.UnsupportedAt = pos
		}
	}
	return req, nil
}

// addrDumper puts an rtnl address dump's addresses into messages. A
// filter by index sets NLM_F_DUMP_FILTERED on every message and on
// NLMSG_DONE.
type addrDumper struct {
	d     *rtnl.AddrDump
	flags netlink.HeaderFlags
}

// startAddrDump starts the dump req asks for.
func startAddrDump(r *request, req rtnl.AddrDumpRequest) (dumper, error) {
	ad, err := r.h.DumpAddrs(req)
	if err != nil {
		return nil, err
	}
	d := &addrDumper{d: ad}
	if ad.Filtered() {
		d.flags = netlink.HeaderFlags(uapi.NLM_F_DUMP_FILTERED)
		r.answerFlags |= d.flags
	}
	return d, nil
}

// fill puts the addresses from the cursor on, family after family, and
// checks the dump's consistency after each, as in_dev_dump_addr and
// in6_dump_addrs do.
//
// Kernel: inet_dump_ifaddr, in_dev_dump_addr (net/ipv4/devinet.c);
// inet6_dump_addr, in6_dump_addrs (net/ipv6/addrconf.c); rtnl_dump_all.
func (d *addrDumper) fill(p *part) (bool, error) {
	for !d.d.Done() {
		var perr error
		n := p.n
		ds, err := d.d.Next(putEach(p, rt.RTMNewAddr, d.flags,
			func(a *rtnl.AddrInfo, _ int) ([]byte, error) { return addrMessage(*a), nil }, &perr))
		if err != nil {
			return false, bareErrno(err, syscall.ENODEV)
		}
		if p.n > n {
			p.checkConsistent(ds.Seq)
		} else {
			p.setGen(ds.Seq)
		}
		if perr != nil || !ds.Done {
			return false, perr
		}
		if !d.d.Done() {
			p.resetGen()
		}
	}
	return true, nil
}

func (d *addrDumper) close() { d.d.Close() }

// dumpAddrs4 serves RTM_GETADDR with NLM_F_DUMP for AF_INET.
//
// Kernel: inet_dump_ifaddr (net/ipv4/devinet.c).
func dumpAddrs4(r *request) (dumper, error) {
	req, err := addrDumpReq(r, rt.FamilyInet, ifaIPv4Policy, "ipv4: ")
	if err != nil {
		return nil, err
	}
	return startAddrDump(r, req)
}

// dumpAddrs6 serves RTM_GETADDR with NLM_F_DUMP for AF_INET6.
//
// Kernel: inet6_dump_ifaddr (net/ipv6/addrconf.c).
func dumpAddrs6(r *request) (dumper, error) {
	req, err := addrDumpReq(r, rt.FamilyInet6, ifaIPv6Policy, "ipv6: ")
	if err != nil {
		return nil, err
	}
	return startAddrDump(r, req)
}

// dumpAddrsAll serves RTM_GETADDR with NLM_F_DUMP for AF_UNSPEC: every
// family's dump in turn, IPv4 then IPv6; IPv4's dumpit checks the request
// first.
//
// Kernel: rtnl_dump_all (net/core/rtnetlink.c).
func dumpAddrsAll(r *request) (dumper, error) {
	req, err := addrDumpReq(r, rt.FamilyUnspec, ifaIPv4Policy, "ipv4: ")
	if err != nil {
		return nil, err
	}
	return startAddrDump(r, req)
}
