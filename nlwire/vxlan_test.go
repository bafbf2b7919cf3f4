package nlwire_test

// vxlan on the wire: creation with IFLA_INFO_DATA as iproute2 and
// jsimonetti/rtnetlink send it, the kernel's refusals (vxlan_validate,
// vxlan_nl2conf, vxlan_config_validate), changelink, dumps filled as
// vxlan_fill_info fills them, and the vxlans a lower device takes with it
// when it goes (vxlan_handle_lowerdev_unregister).

import (
	"encoding/binary"
	"net"
	"reflect"
	"syscall"
	"testing"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/jsimonetti/rtnetlink/v2/driver"
	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
	"github.com/netsimlab/netsim/rtnl"
)

// Ifindexes of the vxlan sequence, after vethPair.
const (
	ifVx0 = 4 // id 42, no lower device
	ifVx1 = 5 // id 43 on veth0, IPv4
	ifVx2 = 6 // id 44 on veth0, IPv6
	ifVx3 = 7 // external, vnifilter
	ifVx4 = 8 // id 42 on another port
	ifVx5 = 9 // id 42 over IPv6
)

// be16 is a big-endian u16 attribute (IFLA_VXLAN_PORT, IFLA_VXLAN_LABEL's
// halves are be32).
func be16(t uint16, v uint16) W.Attr {
	return W.Attr{Type: t, Data: binary.BigEndian.AppendUint16(nil, v)}
}

func be32(t uint16, v uint32) W.Attr {
	return W.Attr{Type: t, Data: binary.BigEndian.AppendUint32(nil, v)}
}

// portRange is IFLA_VXLAN_PORT_RANGE (struct ifla_vxlan_port_range, two
// be16).
func portRange(lo, hi uint16) W.Attr {
	return W.Attr{Type: uapi.IFLA_VXLAN_PORT_RANGE, Data: binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, lo), hi)}
}

// vxlanMsg is an RTM_NEWLINK of kind vxlan: the device's own attributes
// (name, address, ...) and its IFLA_INFO_DATA.
func vxlanMsg(flags uint16, index int32, own []W.Attr, data ...W.Attr) netlink.Message {
	info := []W.Attr{W.Str(uapi.IFLA_INFO_KIND, "vxlan")}
	if data != nil {
		info = append(info, W.Nest(uapi.IFLA_INFO_DATA, data...))
	}
	return W.Msg(uapi.RTM_NEWLINK, flags, W.IfInfo{Index: index}.Bytes(), append(own, W.Nest(uapi.IFLA_LINKINFO, info...))...)
}

func vxName(name, mac string) []W.Attr {
	return []W.Attr{W.Str(uapi.IFLA_IFNAME, name), W.MAC(uapi.IFLA_ADDRESS, mac)}
}

func vxAdd(name, mac string, data ...W.Attr) netlink.Message {
	return vxlanMsg(W.Create, 0, vxName(name, mac), data...)
}

func vxID(id uint32) W.Attr { return W.U32(uapi.IFLA_VXLAN_ID, id) }

func init() {
	bad := func(data ...W.Attr) netlink.Message { return vxAdd("vxbad", "02:00:00:00:00:4f", data...) }
	sequences = append(sequences, W.Seq{
		Name:    "vxlan",
		Doc:     "vxlan devices: creation, defaults, the kernel's checks, changelink, dumps, and a lower device's deletion",
		Options: extAck,
		Groups:  []uint32{uapi.RTNLGRP_LINK},
		Steps: steps(
			send(vethPair()),
			note("no lower device: MTU 1500, IPv4", vxAdd("vx0", "02:00:00:00:00:40", vxID(42), be16(uapi.IFLA_VXLAN_PORT, 4789))),
			note("on veth0: MTU 1500 - 50", vxAdd("vx1", "02:00:00:00:00:41", vxID(43), W.IP(uapi.IFLA_VXLAN_GROUP, "10.0.0.2"),
				W.IP(uapi.IFLA_VXLAN_LOCAL, "10.0.0.1"), W.U32(uapi.IFLA_VXLAN_LINK, ifVeth0), portRange(1000, 2000),
				W.U8(uapi.IFLA_VXLAN_TTL, 64), W.U8(uapi.IFLA_VXLAN_TOS, 1), W.U8(uapi.IFLA_VXLAN_LEARNING, 0),
				W.U32(uapi.IFLA_VXLAN_AGEING, 100), W.U32(uapi.IFLA_VXLAN_LIMIT, 10), W.U8(uapi.IFLA_VXLAN_PROXY, 1),
				W.U8(uapi.IFLA_VXLAN_RSC, 1), W.U8(uapi.IFLA_VXLAN_L2MISS, 1), W.U8(uapi.IFLA_VXLAN_L3MISS, 1),
				W.U8(uapi.IFLA_VXLAN_UDP_CSUM, 0))),
			note("IPv6 on veth0: MTU 1500 - 70, a requested MTU above it cut", vxlanMsg(W.Create, 0,
				append(vxName("vx2", "02:00:00:00:00:42"), W.U32(uapi.IFLA_MTU, 9000)), vxID(44),
				W.IP(uapi.IFLA_VXLAN_GROUP6, "2001:db8::2"), W.U32(uapi.IFLA_VXLAN_LINK, ifVeth0), be32(uapi.IFLA_VXLAN_LABEL, 5),
				W.Flag(uapi.IFLA_VXLAN_TTL_INHERIT), W.U8(uapi.IFLA_VXLAN_DF, 2), W.U8(uapi.IFLA_VXLAN_UDP_ZERO_CSUM6_TX, 1),
				W.U8(uapi.IFLA_VXLAN_UDP_ZERO_CSUM6_RX, 1), W.U8(uapi.IFLA_VXLAN_REMCSUM_TX, 1), W.U8(uapi.IFLA_VXLAN_REMCSUM_RX, 1),
				W.Flag(uapi.IFLA_VXLAN_GBP))),
			note("external with VNI filtering", vxAdd("vx3", "02:00:00:00:00:43", W.U8(uapi.IFLA_VXLAN_COLLECT_METADATA, 1),
				W.U8(uapi.IFLA_VXLAN_VNIFILTER, 1), W.U8(uapi.IFLA_VXLAN_LEARNING, 0))),
			note("the same VNI on another port", vxAdd("vx4", "02:00:00:00:00:44", vxID(42), be16(uapi.IFLA_VXLAN_PORT, 4790))),
			note("the same VNI over IPv6", vxAdd("vx5", "02:00:00:00:00:45", vxID(42), be16(uapi.IFLA_VXLAN_PORT, 4789), W.IP(uapi.IFLA_VXLAN_GROUP6, "2001:db8::9"))),
			note("the VNI of vx5", bad(vxID(42), be16(uapi.IFLA_VXLAN_PORT, 4789), W.IP(uapi.IFLA_VXLAN_LOCAL6, "2001:db8::1"))),
			note("remcsum nopartial", bad(vxID(50), W.Flag(uapi.IFLA_VXLAN_REMCSUM_NOPARTIAL))),
			note("no IFLA_INFO_DATA", vxAdd("vxbad", "02:00:00:00:00:4f")),
			note("an id of 2^24", bad(vxID(1<<24))),
			note("a source port range upside down", bad(vxID(50), portRange(2000, 1000))),
			note("DF 3", bad(vxID(50), W.U8(uapi.IFLA_VXLAN_DF, 3))),
			note("MTU 67", vxlanMsg(W.Create, 0, append(vxName("vxbad", "02:00:00:00:00:4f"), W.U32(uapi.IFLA_MTU, 67)), vxID(50))),
			note("a multicast address", vxAdd("vxbad", "03:00:00:00:00:4f", vxID(50))),
			note("a 4-byte address", vxlanMsg(W.Create, 0, []W.Attr{W.Str(uapi.IFLA_IFNAME, "vxbad"), {Type: uapi.IFLA_ADDRESS, Data: []byte{2, 0, 0, 0}}}, vxID(50))),
			note("the VNI of vx0 on its port", bad(vxID(42), be16(uapi.IFLA_VXLAN_PORT, 4789))),
			note("local IPv4, remote IPv6", bad(vxID(50), W.IP(uapi.IFLA_VXLAN_LOCAL, "10.0.0.1"), W.IP(uapi.IFLA_VXLAN_GROUP6, "2001:db8::9"))),
			note("a multicast local address", bad(vxID(50), W.IP(uapi.IFLA_VXLAN_LOCAL, "239.0.0.1"))),
			note("a group without a device", bad(vxID(50), W.IP(uapi.IFLA_VXLAN_GROUP, "239.0.0.1"))),
			note("no such device", bad(vxID(50), W.U32(uapi.IFLA_VXLAN_LINK, 99))),
			note("a label over IPv4", bad(vxID(50), be32(uapi.IFLA_VXLAN_LABEL, 5))),
			note("a link-local local address, a global remote", bad(vxID(50), W.IP(uapi.IFLA_VXLAN_LOCAL6, "fe80::1"), W.IP(uapi.IFLA_VXLAN_GROUP6, "2001:db8::9"))),
			note("link-local addresses without a device", bad(vxID(50), W.IP(uapi.IFLA_VXLAN_LOCAL6, "fe80::1"), W.IP(uapi.IFLA_VXLAN_GROUP6, "fe80::2"))),
			note("vnifilter without external", bad(vxID(50), W.U8(uapi.IFLA_VXLAN_VNIFILTER, 1))),
			note("gpe without external", bad(vxID(50), W.Flag(uapi.IFLA_VXLAN_GPE))),
			note("GBP with a 4-byte payload (as jsimonetti/rtnetlink v2.3.0 encodes the flag)", bad(vxID(50), W.U32(uapi.IFLA_VXLAN_GBP, 0))),
			note("a short IFLA_VXLAN_GROUP", bad(vxID(50), W.Attr{Type: uapi.IFLA_VXLAN_GROUP, Data: []byte{10, 0}})),
			note("changelink: ttl, tos, learning, ageing, remote, local, df", vxlanMsg(W.Ack, ifVx1, nil, W.U8(uapi.IFLA_VXLAN_TTL, 5),
				W.U8(uapi.IFLA_VXLAN_TOS, 0x10), W.U8(uapi.IFLA_VXLAN_LEARNING, 1), W.U32(uapi.IFLA_VXLAN_AGEING, 0),
				W.IP(uapi.IFLA_VXLAN_GROUP, "10.0.0.3"), W.IP(uapi.IFLA_VXLAN_LOCAL, "10.0.0.4"), W.U8(uapi.IFLA_VXLAN_DF, 1))),
			note("changelink of vx2 (gbp, remcsumrx): the reserved bits again", vxlanMsg(W.Ack, ifVx2, nil, W.U8(uapi.IFLA_VXLAN_TTL, 7))),
			note("changelink: the same VNI", vxlanMsg(W.Ack, ifVx1, nil, vxID(43))),
			note("changelink: another VNI", vxlanMsg(W.Ack, ifVx1, nil, vxID(44))),
			note("changelink: the port", vxlanMsg(W.Ack, ifVx1, nil, be16(uapi.IFLA_VXLAN_PORT, 4789))),
			note("changelink: the port range", vxlanMsg(W.Ack, ifVx1, nil, portRange(1, 2))),
			note("changelink: the limit", vxlanMsg(W.Ack, ifVx1, nil, W.U32(uapi.IFLA_VXLAN_LIMIT, 1))),
			note("changelink: udpcsum", vxlanMsg(W.Ack, ifVx1, nil, W.U8(uapi.IFLA_VXLAN_UDP_CSUM, 1))),
			note("changelink: proxy", vxlanMsg(W.Ack, ifVx1, nil, W.U8(uapi.IFLA_VXLAN_PROXY, 1))),
			note("changelink: gbp", vxlanMsg(W.Ack, ifVx1, nil, W.Flag(uapi.IFLA_VXLAN_GBP))),
			note("changelink: an IPv6 remote on an IPv4 device", vxlanMsg(W.Ack, ifVx1, nil, W.IP(uapi.IFLA_VXLAN_GROUP6, "2001:db8::9"))),
			note("changelink: the MTU with IFLA_INFO_DATA", vxlanMsg(W.Ack, ifVx1, []W.Attr{W.U32(uapi.IFLA_MTU, 1400)}, W.U8(uapi.IFLA_VXLAN_TTL, 6))),
			note("changelink: a group without a device", vxlanMsg(W.Ack, ifVx0, nil, W.IP(uapi.IFLA_VXLAN_GROUP, "239.0.0.1"))),
			note("changelink: a device", vxlanMsg(W.Ack, ifVx0, nil, W.U32(uapi.IFLA_VXLAN_LINK, ifVeth1))),
			note("changelink: IFLA_VXLAN_LINK 0 names no lower device: vx1 keeps veth0 (reported, its MTU limit, deleted with it)",
				vxlanMsg(W.Ack, ifVx1, nil, W.U32(uapi.IFLA_VXLAN_LINK, 0))),
			note("MTU above the lower's allowance", W.Msg(uapi.RTM_NEWLINK, W.Ack, W.IfInfo{Index: ifVx1}.Bytes(), W.U32(uapi.IFLA_MTU, 1451))),
			W.Msg(uapi.RTM_NEWLINK, W.Ack, W.IfInfo{Index: ifVx1}.Bytes(), W.U32(uapi.IFLA_MTU, 1450)),
			note("up: UNKNOWN", linkUp(ifVx0)),
			W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes()),
			note("deleting vx2 unlinks it from veth0", W.Msg(uapi.RTM_DELLINK, W.Ack, W.IfInfo{Index: ifVx2}.Bytes())),
			note("deleting veth0 deletes the vxlans on it", W.Msg(uapi.RTM_DELLINK, W.Ack, W.IfInfo{Index: ifVeth0}.Bytes())),
			W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes()),
		),
	})
}

// TestVxlanUpstreamDriver sends what jsimonetti/rtnetlink v2.3.0's
// driver.Vxlan encodes and reads back what it decodes, for the shapes its
// live tests use: a VNI alone (the kernel's defaults come back), a
// multicast group with a local address over a lower device, custom
// settings, an IPv6 group, the FDB options and a source port range.
func TestVxlanUpstreamDriver(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	conn, err := nlwire.DialRTNetlink(k.InitNet())
	require.NoError(t, err)
	defer conn.Close()

	const dummyIndex = 1950
	require.NoError(t, conn.Link.New(&rtnetlink.LinkMessage{Index: dummyIndex, Attributes: &rtnetlink.LinkAttributes{
		Name: "vxdummy", Info: &rtnetlink.LinkInfo{Kind: "dummy"}}}))
	u8 := func(v uint8) *uint8 { return &v }
	u16 := func(v uint16) *uint16 { return &v }
	u32 := func(v uint32) *uint32 { return &v }
	b := func(v bool) *bool { return &v }
	defaults := func(v driver.Vxlan) *driver.Vxlan {
		// What vxlan_fill_info reports of a device created with a VNI
		// only, beside the fields a case sets.
		w := driver.Vxlan{TTL: u8(0), TOS: u8(0), Port: u16(8472), Learning: b(true), Ageing: u32(300),
			Limit: u32(0), PortRange: &driver.VxlanPortRange{}, Proxy: b(false), RSC: b(false), L2Miss: b(false),
			L3Miss: b(false), UDPCsum: b(true), UDPZeroCsum6Tx: b(false), UDPZeroCsum6Rx: b(false),
			RemCsumTx: b(false), RemCsumRx: b(false), CollectMetadata: b(false), Label: u32(0),
			TTLInherit: b(false), DF: new(driver.VxlanDFUnset)}
		// The case's own fields (pointers, and the addresses as sent)
		// come back as sent.
		wv, vv := reflect.ValueOf(&w).Elem(), reflect.ValueOf(v)
		for i := range vv.NumField() {
			if f := vv.Field(i); !f.IsNil() {
				wv.Field(i).Set(f)
			}
		}
		return &w
	}
	cases := []struct {
		name string
		d    driver.Vxlan
	}{
		{"vxlan0", driver.Vxlan{ID: u32(100)}},
		{"vxlan1", driver.Vxlan{ID: u32(200), Group: net.ParseIP("239.1.1.1").To4(), Local: net.ParseIP("192.168.1.1").To4(), Link: u32(dummyIndex)}},
		{"vxlan2", driver.Vxlan{ID: u32(101), Port: u16(8472), TTL: u8(64), TOS: u8(0), Learning: b(false)}},
		{"vxlan6", driver.Vxlan{ID: u32(102), Group6: net.ParseIP("ff05::100"), Link: u32(dummyIndex), TTL: u8(64)}},
		{"vxlan-adv", driver.Vxlan{ID: u32(103), Ageing: u32(120), Limit: u32(1000), Proxy: b(true), L2Miss: b(true),
			L3Miss: b(true), UDPCsum: b(true), Learning: b(true)}},
		{"vxlan-port", driver.Vxlan{ID: u32(104), PortRange: &driver.VxlanPortRange{Low: 10000, High: 20000}}},
	}
	for i, c := range cases {
		index := uint32(2000 + i)
		d := c.d
		require.NoError(t, conn.Link.New(&rtnetlink.LinkMessage{Index: index, Attributes: &rtnetlink.LinkAttributes{
			Name: c.name, Info: &rtnetlink.LinkInfo{Kind: "vxlan", Data: &d}}}), c.name)
		msg, err := conn.Link.Get(index)
		require.NoError(t, err, c.name)
		got, ok := msg.Attributes.Info.Data.(*driver.Vxlan)
		require.True(t, ok, "%s: %T", c.name, msg.Attributes.Info.Data)
		require.Equal(t, defaults(c.d), got, c.name)
		wantMTU := uint32(1500)
		if c.d.Link != nil {
			wantMTU = 1500 - 50 // over IPv4
			if c.d.Group6 != nil {
				wantMTU = 1500 - 70
			}
		}
		require.Equal(t, wantMTU, msg.Attributes.MTU, c.name)
	}
	require.NoError(t, k.CheckInvariants())
	// The kernel refuses the GBP flag as driver.Vxlan encodes it (a u32
	// where NLA_FLAG allows no payload).
	err = conn.Link.New(&rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{Name: "vxgbp",
		Info: &rtnetlink.LinkInfo{Kind: "vxlan", Data: &driver.Vxlan{ID: u32(300), GBP: b(true)}}}})
	require.ErrorIs(t, err, syscall.ERANGE)
	// Deleting the lower device deletes the vxlans on it.
	require.NoError(t, conn.Link.Delete(dummyIndex))
	links, err := conn.Link.List()
	require.NoError(t, err)
	var names []string
	for _, l := range links {
		names = append(names, l.Attributes.Name)
	}
	require.Equal(t, []string{"lo", "vxlan0", "vxlan2", "vxlan-adv", "vxlan-port"}, names)
	require.NoError(t, k.CheckInvariants())
}
