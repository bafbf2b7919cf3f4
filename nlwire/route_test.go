package nlwire

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"testing"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// routeEnv is a namespace with a veth pair va (ifindex 3) / vb (2), both
// up, va with 10.0.0.1/24 and 2001:db8::1/64, as the real kernel numbers
// them after `ip link add va type veth peer name vb` in a new namespace.
type routeEnv struct {
	t  *testing.T
	h  *rtnl.Handle
	ip *iproute.IP
}

func newRouteEnv(t *testing.T) *routeEnv {
	k := rtnl.MustNewKernel(rtnl.After)
	task := k.World().NewTask("test")
	e := &routeEnv{t: t, h: k.InitNet().Handle(task), ip: iproute.New(k, task)}
	for _, c := range []string{
		"link add va type veth peer name vb", "link set va up", "link set vb up",
		"addr add 10.0.0.1/24 dev va", "addr add 2001:db8::1/64 dev va nodad",
	} {
		require.NoError(t, e.ip.Run(strings.Fields(c)...), c)
	}
	return e
}

// serve runs a request through the handler table as the socket would
// pick the handler (the family's, or PF_UNSPEC's).
func (e *routeEnv) serve(typ rt.MsgType, flags netlink.HeaderFlags, body []byte, strict bool) (*request, []netlink.Message, error) {
	r := &request{h: e.h, hdr: netlink.Header{Type: netlink.HeaderType(typ), Flags: flags | netlink.Request}, body: body, strict: strict}
	hd, ok := handlers[handlerKey{r.family(), typ}]
	if !ok {
		hd = handlers[handlerKey{0, typ}]
	}
	if flags&netlink.Dump == netlink.Dump {
		require.NotNil(e.t, hd.dump)
		msgs, cb, err := drainDumpState(hd.dump(r))
		r.answerFlags |= cb.answerFlags
		return r, msgs, err
	}
	require.NotNil(e.t, hd.do)
	msgs, err := hd.do(r)
	return r, msgs, err
}

func (e *routeEnv) marshal(m *rtnetlink.RouteMessage) []byte {
	b, err := m.MarshalBinary()
	require.NoError(e.t, err)
	return b
}

// rawBody builds an rtmsg and attributes by hand, for what the client
// library cannot send.
func rawBody(m rtmsg, attrs ...any) []byte {
	b := m.put(nil)
	for i := 0; i < len(attrs); i += 2 {
		p := attrs[i+1].([]byte)
		b = binary.LittleEndian.AppendUint16(b, uint16(4+len(p)))
		b = binary.LittleEndian.AppendUint16(b, uint16(attrs[i].(int)))
		b = append(b, p...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	return b
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func unhex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	require.NoError(t, err)
	return b
}

func decodeRoutes(t *testing.T, msgs []netlink.Message) []rtnetlink.RouteMessage {
	var out []rtnetlink.RouteMessage
	for _, m := range msgs {
		require.Equal(t, netlink.HeaderType(rt.RTMNewRoute), m.Header.Type)
		var rm rtnetlink.RouteMessage
		require.NoError(t, rm.UnmarshalBinary(m.Data))
		out = append(out, rm)
	}
	return out
}

// TestRouteAddDump adds routes as a jsimonetti/rtnetlink client encodes
// them and checks the dump, decoded by that client, and byte for byte
// against what Linux 6.18 sent for the same routes.
func TestRouteAddDump(t *testing.T) {
	e := newRouteEnv(t)
	create := netlink.Create | netlink.Excl | netlink.Acknowledge
	add := &rtnetlink.RouteMessage{Family: syscall.AF_INET, DstLength: 16, Table: 254, Protocol: 4, Type: 1,
		Attributes: rtnetlink.RouteAttributes{Dst: net.IP{10, 1, 0, 0}, Gateway: net.IP{10, 0, 0, 2}}}
	_, msgs, err := e.serve(rt.RTMNewRoute, create, e.marshal(add), false)
	require.NoError(t, err)
	assert.Empty(t, msgs)
	_, _, err = e.serve(rt.RTMNewRoute, create, e.marshal(add), false)
	assert.ErrorIs(t, err, syscall.EEXIST)

	mp := &rtnetlink.RouteMessage{Family: syscall.AF_INET, DstLength: 16, Table: 254, Protocol: 4, Type: 1,
		Attributes: rtnetlink.RouteAttributes{Dst: net.IP{10, 8, 0, 0}, Priority: 5,
			Metrics:   &rtnetlink.RouteMetrics{MTU: 1400},
			Multipath: []rtnetlink.NextHop{{Hop: rtnetlink.RTNextHop{IfIndex: 3}, Gateway: net.IP{10, 0, 0, 2}}, {Hop: rtnetlink.RTNextHop{IfIndex: 3, Hops: 2}, Gateway: net.IP{10, 0, 0, 3}}}}}
	_, _, err = e.serve(rt.RTMNewRoute, create, e.marshal(mp), false)
	require.NoError(t, err)

	v6 := &rtnetlink.RouteMessage{Family: syscall.AF_INET6, DstLength: 48, Table: 254, Protocol: 4, Type: 1,
		Attributes: rtnetlink.RouteAttributes{Dst: net.ParseIP("2001:db8:1::"), Gateway: net.ParseIP("2001:db8::2")}}
	_, _, err = e.serve(rt.RTMNewRoute, create, e.marshal(v6), false)
	require.NoError(t, err)

	r, msgs, err := e.serve(rt.RTMGetRoute, netlink.Dump, rawBody(rtmsg{family: syscall.AF_UNSPEC}), true)
	require.NoError(t, err)
	assert.Zero(t, r.answerFlags, "an unfiltered dump's NLMSG_DONE says nothing more")
	routes := decodeRoutes(t, msgs)
	byDst := map[string][]byte{}
	for i, m := range routes {
		assert.Equal(t, netlink.HeaderFlags(uapi.NLM_F_DUMP_FILTERED), msgs[i].Header.Flags, "a strict dump marks each route")
		byDst[m.Attributes.Dst.String()] = msgs[i].Data
	}
	// Linux 6.18: 10.1.0.0/16 via 10.0.0.2 dev va proto static.
	assert.Equal(t, unhex(t, "02100000fe04000100000000 08000f00fe000000 080001000a010000 080005000a000002 0800040003000000"), byDst["10.1.0.0"])
	// With a metric, the MTU and two paths (weights 1 and 3).
	assert.Equal(t, unhex(t, "02100000fe04000100000000 08000f00fe000000 080001000a080000 0800060005000000"+
		"0c000800 0800020078050000 2400090010000000030000000800 05000a000002 10000002 03000000 080005000a000003"), byDst["10.8.0.0"])
	// rt6_fill_node: RTA_PRIORITY 1024, RTA_CACHEINFO, RTA_PREF.
	assert.Equal(t, unhex(t, "0a300000fe04000100000000 08000f00fe000000 1400010020010db8000100000000000000000000 0800060000040000"+
		"1400050020010db8000000000000000000000002 0800040003000000 24000c00"+strings.Repeat("00", 32)+" 0500140000000000"), byDst["2001:db8:1::"])

	list, err := e.h.RouteList(rt.FamilyUnspec, 0)
	require.NoError(t, err)
	require.Len(t, msgs, len(list))
	for i := range list {
		assert.Equal(t, list[i].Size, 16+len(msgs[i].Data), "fib_nlmsg_size of %v", list[i].Dst)
	}
	m := routes[0]
	assert.Equal(t, uint32(254), m.Attributes.Table)
}

// TestRouteErrors checks the kernel's errno and extack for bad requests,
// as Linux 6.18 answers them.
func TestRouteErrors(t *testing.T) {
	e := newRouteEnv(t)
	v4 := func(dl uint8, typ uint8) rtmsg {
		return rtmsg{family: syscall.AF_INET, dstLen: dl, table: 254, protocol: 4, typ: typ}
	}
	gw := []byte{10, 0, 0, 2}
	for _, c := range []struct {
		name  string
		flags netlink.HeaderFlags
		body  []byte
		errno syscall.Errno
		msg   string
		off   int
	}{
		{"host bits", netlink.Create, rawBody(v4(8, 1), uapi.RTA_DST, []byte{10, 1, 0, 0}, uapi.RTA_GATEWAY, gw), syscall.EINVAL, "Invalid prefix for given prefix length", -1},
		{"prefix length", netlink.Create, rawBody(v4(33, 1), uapi.RTA_DST, []byte{10, 1, 0, 0}), syscall.EINVAL, "Invalid prefix length", -1},
		{"gateway", netlink.Create, rawBody(v4(16, 1), uapi.RTA_DST, []byte{10, 3, 0, 0}, uapi.RTA_GATEWAY, []byte{10, 7, 0, 2}), syscall.ENETUNREACH, "Nexthop has invalid gateway", -1},
		{"no device", netlink.Create, rawBody(rtmsg{family: 2, dstLen: 16, table: 254, scope: 253, typ: 1}, uapi.RTA_DST, []byte{10, 3, 0, 0}, uapi.RTA_OIF, le32(99)), syscall.ENODEV, "", -1},
		{"type 0", netlink.Create, rawBody(v4(16, 0), uapi.RTA_DST, []byte{10, 4, 0, 0}, uapi.RTA_GATEWAY, gw), syscall.EINVAL, "Invalid scope", -1},
		{"bad type", netlink.Create, rawBody(v4(16, 12), uapi.RTA_DST, []byte{10, 4, 0, 0}), syscall.EINVAL, "Invalid route type", -1},
		{"no create", 0, rawBody(v4(16, 1), uapi.RTA_DST, []byte{10, 6, 0, 0}, uapi.RTA_GATEWAY, gw), syscall.ENOENT, "", -1},
		{"gateway and via", netlink.Create, rawBody(v4(16, 1), uapi.RTA_DST, []byte{10, 6, 0, 0}, uapi.RTA_GATEWAY, gw, uapi.RTA_VIA, append([]byte{2, 0}, gw...)), syscall.EINVAL, "Nexthop configuration can not contain both GATEWAY and VIA", -1},
		{"nhid and oif", netlink.Create, rawBody(v4(16, 1), uapi.RTA_DST, []byte{10, 6, 0, 0}, uapi.RTA_OIF, le32(3), uapi.RTA_NH_ID, le32(5)), syscall.EINVAL, "Nexthop specification and nexthop id are mutually exclusive", -1},
		{"short dst", netlink.Create, rawBody(v4(16, 1), uapi.RTA_DST, []byte{10, 6}, uapi.RTA_OIF, le32(3)), syscall.ERANGE, "Attribute failed policy validation", 28},
		{"metric length", netlink.Create, rawBody(v4(24, 1), uapi.RTA_DST, []byte{10, 7, 1, 0}, uapi.RTA_GATEWAY, gw, uapi.RTA_METRICS, []byte{6, 0, 2, 0, 0x78, 0x05, 0, 0}), syscall.EINVAL, "Invalid attribute in metrics", 48},
		{"multipath extra", netlink.Create, rawBody(v4(24, 1), uapi.RTA_DST, []byte{10, 8, 1, 0}, uapi.RTA_MULTIPATH, []byte{8, 0, 0, 0, 3, 0, 0, 0, 1, 2, 3, 4}), syscall.EINVAL, "Invalid nexthop configuration - extra data after nexthops", -1},
		{"encap", netlink.Create, rawBody(v4(16, 1), uapi.RTA_DST, []byte{10, 20, 0, 0}, uapi.RTA_OIF, le32(3), uapi.RTA_ENCAP|nlaFNested, []byte{}), syscall.EOPNOTSUPP, "Route encapsulation (RTA_ENCAP) is not modelled", -1},
		// rtm_to_fib_config checks each RTA_ENCAP_TYPE as it meets it: an
		// unknown one is refused though a valid one follows.
		{"encap type", netlink.Create, rawBody(v4(16, 1), uapi.RTA_DST, []byte{10, 21, 0, 0}, uapi.RTA_OIF, le32(3), uapi.RTA_ENCAP_TYPE, []byte{99, 0}, uapi.RTA_ENCAP_TYPE, []byte{1, 0}), syscall.EINVAL, "Unknown LWT encapsulation type", -1},
		{"v6 tos", netlink.Create, rawBody(rtmsg{family: 10, dstLen: 64, tos: 4, table: 254, typ: 1}, uapi.RTA_OIF, le32(3)), syscall.EINVAL, "Invalid dsfield (tos): option not available for IPv6", -1},
		{"v6 via", netlink.Create, rawBody(rtmsg{family: 10, dstLen: 64, table: 254, typ: 1}, uapi.RTA_VIA, append([]byte{10, 0}, make([]byte, 16)...)), syscall.EINVAL, "IPv6 does not support RTA_VIA attribute", -1},
		{"v6 short dst", netlink.Create, rawBody(rtmsg{family: 10, dstLen: 64, table: 254, typ: 1}, uapi.RTA_DST, []byte{0x20, 1, 0xd, 0xb8}, uapi.RTA_OIF, le32(3)), syscall.EINVAL, "", -1},
		{"short header", netlink.Create, []byte{2, 0, 0, 0}, syscall.EINVAL, "", -1},
	} {
		_, _, err := e.serve(rt.RTMNewRoute, c.flags|netlink.Acknowledge, c.body, false)
		require.Error(t, err, c.name)
		var en *errno.Error
		require.True(t, errors.As(err, &en), c.name)
		assert.Equal(t, c.errno, en.Errno, c.name)
		assert.Equal(t, c.msg, en.Msg, c.name)
		assert.Equal(t, c.off, errOffset(err), c.name)
	}
	// Deletes: no such route, no such table.
	_, _, err := e.serve(rt.RTMDelRoute, 0, rawBody(rtmsg{family: 2, dstLen: 16, table: 254, scope: 255}, uapi.RTA_DST, []byte{10, 99, 0, 0}), false)
	assert.ErrorIs(t, err, syscall.ESRCH)
	_, _, err = e.serve(rt.RTMDelRoute, 0, rawBody(rtmsg{family: 2, dstLen: 16, table: 77, scope: 255}, uapi.RTA_DST, []byte{10, 99, 0, 0}), false)
	var en *errno.Error
	require.True(t, errors.As(err, &en))
	assert.Equal(t, syscall.ESRCH, en.Errno)
	assert.Equal(t, "FIB table does not exist", en.Msg)
}

// TestRouteModes checks the NLM_F_* flags of RTM_NEWROUTE: IPv6 adds
// without NLM_F_CREATE, IPv4 does not; IPv4 keeps protocol 0.
func TestRouteModes(t *testing.T) {
	e := newRouteEnv(t)
	body := rawBody(rtmsg{family: 10, dstLen: 64, table: 254, typ: 1}, uapi.RTA_DST, netip.MustParseAddr("2001:db8:5::").AsSlice(), uapi.RTA_OIF, le32(3))
	_, _, err := e.serve(rt.RTMNewRoute, 0, body, false)
	require.NoError(t, err)
	_, _, err = e.serve(rt.RTMNewRoute, netlink.Create|netlink.Append, rawBody(rtmsg{family: 2, dstLen: 16, table: 254, typ: 1},
		uapi.RTA_DST, []byte{10, 5, 0, 0}, uapi.RTA_GATEWAY, []byte{10, 0, 0, 2}), false)
	require.NoError(t, err)
	list, err := e.h.RouteList(rt.FamilyUnspec, 254)
	require.NoError(t, err)
	var got []string
	for _, r := range list {
		if r.Dst.String() == "10.5.0.0/16" || r.Dst.String() == "2001:db8:5::/64" {
			got = append(got, r.Dst.String()+" "+r.Protocol.String())
		}
	}
	// IPv6 takes RTPROT_UNSPEC as RTPROT_BOOT (ip6_route_info_create).
	assert.Equal(t, []string{"10.5.0.0/16 unspec", "2001:db8:5::/64 boot"}, got)
	// Delete the IPv6 one by its wire form.
	_, _, err = e.serve(rt.RTMDelRoute, 0, body, false)
	require.NoError(t, err)
}

// TestRouteDumpStrict checks ip_valid_fib_dump_req: the errors, the
// filters and NLM_F_DUMP_FILTERED on the NLMSG_DONE of a filtered dump.
func TestRouteDumpStrict(t *testing.T) {
	e := newRouteEnv(t)
	require.NoError(t, e.ip.Run("route", "add", "10.2.0.0/24", "dev", "va", "table", "100", "proto", "3"))
	for _, c := range []struct {
		body  []byte
		errno syscall.Errno
		msg   string
	}{
		{[]byte{2, 0, 0, 0}, syscall.EINVAL, "Invalid header for FIB dump request"},
		{rawBody(rtmsg{family: 2, scope: 253}), syscall.EINVAL, "Invalid values in header for FIB dump request"},
		{rawBody(rtmsg{family: 2, flags: uapi.RTM_F_LOOKUP_TABLE}), syscall.EINVAL, "Invalid flags for FIB dump request"},
		{rawBody(rtmsg{family: 2}, uapi.RTA_DST, []byte{10, 0, 0, 0}), syscall.EINVAL, "Unsupported attribute in dump request"},
		{rawBody(rtmsg{family: 2}, uapi.RTA_OIF, le32(99)), syscall.ENODEV, ""},
		{rawBody(rtmsg{family: 2, table: 77}), syscall.ENOENT, "ipv4: FIB table does not exist"},
		{rawBody(rtmsg{family: 10, table: 100}), syscall.ENOENT, "ipv6: FIB table does not exist"},
	} {
		_, _, err := e.serve(rt.RTMGetRoute, netlink.Dump, c.body, true)
		var en *errno.Error
		require.True(t, errors.As(err, &en), c.msg)
		assert.Equal(t, c.errno, en.Errno, c.msg)
		assert.Equal(t, c.msg, en.Msg)
	}
	// A table only IPv4 has: AF_UNSPEC skips IPv6 quietly.
	r, msgs, err := e.serve(rt.RTMGetRoute, netlink.Dump, rawBody(rtmsg{family: 0, table: 100}), true)
	require.NoError(t, err)
	assert.Equal(t, netlink.HeaderFlags(uapi.NLM_F_DUMP_FILTERED), r.answerFlags)
	routes := decodeRoutes(t, msgs)
	require.Len(t, routes, 1)
	assert.Equal(t, uint8(100), routes[0].Table)
	// Protocol and type filters; RTM_F_CLONED asks for exceptions (none).
	_, msgs, err = e.serve(rt.RTMGetRoute, netlink.Dump, rawBody(rtmsg{family: 2, protocol: 3}), true)
	require.NoError(t, err)
	assert.Len(t, msgs, 1)
	_, msgs, err = e.serve(rt.RTMGetRoute, netlink.Dump, rawBody(rtmsg{family: 10, typ: 2}), true)
	require.NoError(t, err)
	for _, m := range decodeRoutes(t, msgs) {
		assert.Equal(t, uint8(2), m.Type)
	}
	assert.NotEmpty(t, msgs)
	_, msgs, err = e.serve(rt.RTMGetRoute, netlink.Dump, rawBody(rtmsg{family: 2, flags: uapi.RTM_F_CLONED}), true)
	require.NoError(t, err)
	assert.Empty(t, msgs)
	// Without strict checking, filters are not read.
	_, msgs, err = e.serve(rt.RTMGetRoute, netlink.Dump, rawBody(rtmsg{family: 2, table: 77}), false)
	require.NoError(t, err)
	assert.Greater(t, len(msgs), 1)
}

// TestRouteGet checks `ip route get` answers byte for byte against Linux
// 6.18's for the same namespace.
func TestRouteGet(t *testing.T) {
	e := newRouteEnv(t)
	require.NoError(t, e.ip.Run("route", "add", "10.1.0.0/16", "via", "10.0.0.2", "proto", "static"))
	require.NoError(t, e.ip.Run("route", "add", "2001:db8:1::/48", "via", "2001:db8::2", "proto", "static"))
	get := func(body []byte, strict bool) []byte {
		_, msgs, err := e.serve(rt.RTMGetRoute, 0, body, strict)
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		return msgs[0].Data
	}
	cacheinfo := func(ref string) string { return "24000c00" + ref + "000000" + strings.Repeat("00", 28) }
	v4 := rtmsg{family: 2, dstLen: 32}
	assert.Equal(t, unhex(t, "02200000fe00000100020000 08000f00fe000000 080001000a010203 0800040003000000 080007000a000001 080005000a000002 0800190000000000"+cacheinfo("02")),
		get(rawBody(v4, uapi.RTA_DST, []byte{10, 1, 2, 3}), true))
	// From a given source with a mark and uid.
	v4s := rtmsg{family: 2, dstLen: 32, srcLen: 32}
	assert.Equal(t, unhex(t, "02202000fe00000100020000 08000f00fe000000 080001000a010203 080002000a000001 0800040003000000 080005000a000002 0800100007000000 08001900e8030000"+cacheinfo("02")),
		get(rawBody(v4s, uapi.RTA_DST, []byte{10, 1, 2, 3}, uapi.RTA_SRC, []byte{10, 0, 0, 1}, uapi.RTA_MARK, le32(7), uapi.RTA_UID, le32(1000)), true))
	// Local delivery of a packet that came in by va.
	assert.Equal(t, unhex(t, "02202000fe00000200020080 08000f00fe000000 080001000a000001 080002000a000002 0800040001000000 0800030003000000"+cacheinfo("02")),
		get(rawBody(v4s, uapi.RTA_DST, []byte{10, 0, 0, 1}, uapi.RTA_SRC, []byte{10, 0, 0, 2}, uapi.RTA_IIF, le32(3)), true))
	// A local output route.
	assert.Equal(t, unhex(t, "02200000fe00000200020080 08000f00fe000000 080001000a000001 0800040001000000 080007000a000001 0800190000000000"+cacheinfo("01")),
		get(rawBody(v4, uapi.RTA_DST, []byte{10, 0, 0, 1}), true))
	// fibmatch: the FIB entry.
	assert.Equal(t, unhex(t, "02100000fe04000100000000 08000f00fe000000 080001000a010000 080005000a000002 0800040003000000"),
		get(rawBody(rtmsg{family: 2, dstLen: 32, flags: uapi.RTM_F_FIB_MATCH}, uapi.RTA_DST, []byte{10, 1, 2, 3}), true))
	// IPv6.
	v6 := rtmsg{family: 10, dstLen: 128}
	assert.Equal(t, unhex(t, "0a808000fe04000100000000 08000f00fe000000 1400010020010db8000100000000000000000005 14000200"+strings.Repeat("00", 16)+
		" 1400070020010db8000000000000000000000001 0800060000040000 1400050020010db8000000000000000000000002 0800040003000000"+cacheinfo("02")+" 0500140000000000"),
		get(rawBody(v6, uapi.RTA_DST, netip.MustParseAddr("2001:db8:1::5").AsSlice()), true))

	// Errors.
	_, _, err := e.serve(rt.RTMGetRoute, 0, rawBody(v4, uapi.RTA_DST, []byte{192, 168, 1, 1}), true)
	assert.ErrorIs(t, err, syscall.ENETUNREACH)
	for _, c := range []struct {
		body []byte
		msg  string
	}{
		{rawBody(rtmsg{family: 2, dstLen: 32, srcLen: 8}, uapi.RTA_DST, []byte{10, 1, 2, 3}), "ipv4: Invalid values in header for route get request"},
		{rawBody(v4, uapi.RTA_DST, []byte{10, 1, 2, 3}, uapi.RTA_PRIORITY, le32(1)), "ipv4: Unsupported attribute in route get request"},
		{rawBody(rtmsg{family: 2}, uapi.RTA_DST, []byte{10, 1, 2, 3}), "ipv4: rtm_src_len and rtm_dst_len must be 32 for IPv4"},
		{rawBody(rtmsg{family: 10, dstLen: 128, flags: uapi.RTM_F_LOOKUP_TABLE}), "ipv6: Invalid flags for get route request"},
	} {
		_, _, err := e.serve(rt.RTMGetRoute, 0, c.body, true)
		var en *errno.Error
		require.True(t, errors.As(err, &en), c.msg)
		assert.Equal(t, syscall.EINVAL, en.Errno)
		assert.Equal(t, c.msg, en.Msg)
	}
	// Without strict checking a bad source length is not looked at.
	get(rawBody(rtmsg{family: 2, dstLen: 32, srcLen: 8}, uapi.RTA_DST, []byte{10, 1, 2, 3}), false)
}

// TestRouteNotify checks the notifier: the dump's message, to the
// family's group.
func TestRouteNotify(t *testing.T) {
	e := newRouteEnv(t)
	require.NoError(t, e.ip.Run("route", "add", "10.1.0.0/16", "via", "10.0.0.2"))
	list, err := e.h.RouteList(rt.FamilyUnspec, 254)
	require.NoError(t, err)
	for i := range list {
		ri := list[i]
		for _, typ := range []rt.MsgType{rt.RTMNewRoute, rt.RTMDelRoute} {
			body, group, err := notifiers[typ](rtnl.Notification{Type: typ, Family: ri.Family, Route: &ri})
			require.NoError(t, err)
			want := uint32(uapi.RTNLGRP_IPV4_ROUTE)
			if ri.Family == rt.FamilyInet6 {
				want = uapi.RTNLGRP_IPV6_ROUTE
			}
			assert.Equal(t, want, group)
			msg, err := routeMessage(&ri, roomSized)
			require.NoError(t, err)
			assert.Equal(t, msg, body)
		}
	}
	body, _, err := notifiers[rt.RTMNewRoute](rtnl.Notification{Type: rt.RTMNewRoute})
	assert.NoError(t, err)
	assert.Nil(t, body)
}
