// vxlan's IFLA_INFO_DATA on the wire: its policy, a request's attributes
// read into netdev.VxlanSettings, a dump's attributes in vxlan_fill_info's
// order, and where the kernel's extack points for a vxlan's errors
// (drivers/net/vxlan/vxlan_core.c: vxlan_policy, vxlan_validate,
// vxlan_nl2conf, vxlan_fill_info).

package nlwire

import (
	"encoding/binary"
	"net/netip"
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
)

// vxlanPolicy is vxlan_policy (Linux 6.18).
var vxlanPolicy = func() policy {
	p := make([]attrPolicy, uapi.IFLA_VXLAN_MAX+1)
	for _, t := range []int{uapi.IFLA_VXLAN_ID, uapi.IFLA_VXLAN_LINK, uapi.IFLA_VXLAN_LABEL,
		uapi.IFLA_VXLAN_AGEING, uapi.IFLA_VXLAN_LIMIT} {
		p[t] = attrPolicy{typ: nlaU32}
	}
	for _, t := range []int{uapi.IFLA_VXLAN_TOS, uapi.IFLA_VXLAN_TTL, uapi.IFLA_VXLAN_LEARNING,
		uapi.IFLA_VXLAN_PROXY, uapi.IFLA_VXLAN_RSC, uapi.IFLA_VXLAN_L2MISS, uapi.IFLA_VXLAN_L3MISS,
		uapi.IFLA_VXLAN_COLLECT_METADATA, uapi.IFLA_VXLAN_UDP_CSUM, uapi.IFLA_VXLAN_UDP_ZERO_CSUM6_TX,
		uapi.IFLA_VXLAN_UDP_ZERO_CSUM6_RX, uapi.IFLA_VXLAN_REMCSUM_TX, uapi.IFLA_VXLAN_REMCSUM_RX,
		uapi.IFLA_VXLAN_DF, uapi.IFLA_VXLAN_VNIFILTER} {
		p[t] = attrPolicy{typ: nlaU8}
	}
	p[uapi.IFLA_VXLAN_GROUP] = attrPolicy{typ: nlaUnspec, len: 4}
	p[uapi.IFLA_VXLAN_LOCAL] = attrPolicy{typ: nlaUnspec, len: 4}
	p[uapi.IFLA_VXLAN_GROUP6] = attrPolicy{typ: nlaUnspec, len: 16}
	p[uapi.IFLA_VXLAN_LOCAL6] = attrPolicy{typ: nlaUnspec, len: 16}
	p[uapi.IFLA_VXLAN_PORT_RANGE] = attrPolicy{typ: nlaUnspec, len: 4} // struct ifla_vxlan_port_range
	p[uapi.IFLA_VXLAN_PORT] = attrPolicy{typ: nlaU16}
	for _, t := range []int{uapi.IFLA_VXLAN_GBP, uapi.IFLA_VXLAN_GPE, uapi.IFLA_VXLAN_REMCSUM_NOPARTIAL,
		uapi.IFLA_VXLAN_TTL_INHERIT} {
		p[t] = attrPolicy{typ: nlaFlag}
	}
	p[uapi.IFLA_VXLAN_LOCALBYPASS] = polMax(nlaU8, 1)
	p[uapi.IFLA_VXLAN_LABEL_POLICY] = polMax(nlaU32, 1) // VXLAN_LABEL_MAX
	p[uapi.IFLA_VXLAN_RESERVED_BITS] = polExactLen(8)   // sizeof(struct vxlanhdr)
	p[uapi.IFLA_VXLAN_MC_ROUTE] = polMax(nlaU8, 1)
	return policy{attrs: p, strictStart: uapi.IFLA_VXLAN_LOCALBYPASS}
}()

// vxlanSettings reads a vxlan request's IFLA_INFO_DATA (hasData: the
// request carries one). Of IFLA_VXLAN_GROUP and IFLA_VXLAN_GROUP6 (and the
// two LOCALs) the IPv4 one is read when both are there, as vxlan_nl2conf
// does.
func vxlanSettings(d attrs, hasData bool) netdev.VxlanSettings {
	s := netdev.VxlanSettings{Data: hasData}
	u8b := func(t int) *bool {
		if !d.has(uint16(t)) {
			return nil
		}
		v := d.u8(uint16(t)) != 0
		return &v
	}
	be16 := func(t int) uint16 { var b [2]byte; copy(b[:], d.get(uint16(t))); return binary.BigEndian.Uint16(b[:]) }
	s.ID = optional(d, uapi.IFLA_VXLAN_ID, attrs.u32)
	s.Group = vxlanAddr(d, uapi.IFLA_VXLAN_GROUP, uapi.IFLA_VXLAN_GROUP6)
	s.Local = vxlanAddr(d, uapi.IFLA_VXLAN_LOCAL, uapi.IFLA_VXLAN_LOCAL6)
	if d.has(uapi.IFLA_VXLAN_LINK) {
		l := netdev.IfIndex(d.u32(uapi.IFLA_VXLAN_LINK))
		s.Link = &l
	}
	s.TOS = optional(d, uapi.IFLA_VXLAN_TOS, attrs.u8)
	s.TTL = optional(d, uapi.IFLA_VXLAN_TTL, attrs.u8)
	s.TTLInherit = d.has(uapi.IFLA_VXLAN_TTL_INHERIT)
	if d.has(uapi.IFLA_VXLAN_LABEL) {
		l := binary.BigEndian.Uint32(d.get(uapi.IFLA_VXLAN_LABEL))
		s.Label = &l
	}
	s.Learning, s.Proxy, s.RSC = u8b(uapi.IFLA_VXLAN_LEARNING), u8b(uapi.IFLA_VXLAN_PROXY), u8b(uapi.IFLA_VXLAN_RSC)
	s.L2Miss, s.L3Miss = u8b(uapi.IFLA_VXLAN_L2MISS), u8b(uapi.IFLA_VXLAN_L3MISS)
	s.Ageing = optional(d, uapi.IFLA_VXLAN_AGEING, attrs.u32)
	s.Limit = optional(d, uapi.IFLA_VXLAN_LIMIT, attrs.u32)
	s.CollectMetadata = u8b(uapi.IFLA_VXLAN_COLLECT_METADATA)
	if r := d.get(uapi.IFLA_VXLAN_PORT_RANGE); r != nil {
		s.PortRange = &[2]uint16{binary.BigEndian.Uint16(r), binary.BigEndian.Uint16(r[2:])}
	}
	if d.has(uapi.IFLA_VXLAN_PORT) {
		p := be16(uapi.IFLA_VXLAN_PORT)
		s.Port = &p
	}
	s.UDPCsum = u8b(uapi.IFLA_VXLAN_UDP_CSUM)
	s.UDPZeroCsum6TX, s.UDPZeroCsum6RX = u8b(uapi.IFLA_VXLAN_UDP_ZERO_CSUM6_TX), u8b(uapi.IFLA_VXLAN_UDP_ZERO_CSUM6_RX)
	s.RemcsumTX, s.RemcsumRX = u8b(uapi.IFLA_VXLAN_REMCSUM_TX), u8b(uapi.IFLA_VXLAN_REMCSUM_RX)
	s.GBP, s.GPE = d.has(uapi.IFLA_VXLAN_GBP), d.has(uapi.IFLA_VXLAN_GPE)
	s.RemcsumNoPartial = d.has(uapi.IFLA_VXLAN_REMCSUM_NOPARTIAL)
	s.DF = optional(d, uapi.IFLA_VXLAN_DF, attrs.u8)
	s.VNIFilter = u8b(uapi.IFLA_VXLAN_VNIFILTER)
	s.LocalBypass = u8b(uapi.IFLA_VXLAN_LOCALBYPASS)
	s.LabelPolicy = optional(d, uapi.IFLA_VXLAN_LABEL_POLICY, attrs.u32)
	s.MCRoute = u8b(uapi.IFLA_VXLAN_MC_ROUTE)
	s.ReservedBits = d.has(uapi.IFLA_VXLAN_RESERVED_BITS)
	return s
}

// vxlanAddr reads the IPv4 attribute t4, or else the IPv6 one t6, or
// neither.
func vxlanAddr(d attrs, t4, t6 uint16) *netip.Addr {
	var a netip.Addr
	switch {
	case d.has(t4):
		a = inAddr4(d.get(t4))
	case d.has(t6):
		a = inAddr6(d.get(t6))
	default:
		return nil
	}
	return &a
}

// vxlanAddrLen is vxlan_validate's first check: an IFLA_ADDRESS that is not
// six bytes long.
func vxlanAddrLen(a attrs) error {
	if a.has(uapi.IFLA_ADDRESS) && len(a.get(uapi.IFLA_ADDRESS)) != 6 {
		return badAttr(errno.New(syscall.EINVAL, "Provided link layer address is not Ethernet"), a.offset(uapi.IFLA_ADDRESS))
	}
	return nil
}

// fillVxlan is vxlan_fill_info: the VNI, the remote (if any), the lower
// device (if any), the local address (if any), then every setting, the
// source port range, the flags that are set, and the reserved bits.
//
// Kernel: vxlan_fill_info (drivers/net/vxlan/vxlan_core.c).
func fillVxlan(d *netlink.AttributeEncoder, v *netdev.VxlanInfo) {
	d.Uint32(uapi.IFLA_VXLAN_ID, v.VNI)
	if !v.Remote.IsUnspecified() {
		if v.Remote.Is4() {
			d.Bytes(uapi.IFLA_VXLAN_GROUP, v.Remote.AsSlice())
		} else {
			d.Bytes(uapi.IFLA_VXLAN_GROUP6, v.Remote.AsSlice())
		}
	}
	if v.LinkIndex != 0 {
		d.Uint32(uapi.IFLA_VXLAN_LINK, uint32(v.LinkIndex))
	}
	if !v.Local.IsUnspecified() {
		if v.Local.Is4() {
			d.Bytes(uapi.IFLA_VXLAN_LOCAL, v.Local.AsSlice())
		} else {
			d.Bytes(uapi.IFLA_VXLAN_LOCAL6, v.Local.AsSlice())
		}
	}
	d.Uint8(uapi.IFLA_VXLAN_TTL, v.TTL)
	d.Uint8(uapi.IFLA_VXLAN_TTL_INHERIT, b2u8(v.TTLInherit))
	d.Uint8(uapi.IFLA_VXLAN_TOS, v.TOS)
	d.Uint8(uapi.IFLA_VXLAN_DF, uint8(v.DF))
	d.Bytes(uapi.IFLA_VXLAN_LABEL, binary.BigEndian.AppendUint32(nil, v.Label))
	d.Uint32(uapi.IFLA_VXLAN_LABEL_POLICY, 0)
	for _, f := range []struct {
		t uint16
		v bool
	}{{uapi.IFLA_VXLAN_LEARNING, v.Learning}, {uapi.IFLA_VXLAN_PROXY, v.Proxy}, {uapi.IFLA_VXLAN_RSC, v.RSC},
		{uapi.IFLA_VXLAN_L2MISS, v.L2Miss}, {uapi.IFLA_VXLAN_L3MISS, v.L3Miss},
		{uapi.IFLA_VXLAN_COLLECT_METADATA, v.CollectMetadata}} {
		d.Uint8(f.t, b2u8(f.v))
	}
	d.Uint32(uapi.IFLA_VXLAN_AGEING, v.Ageing)
	d.Uint32(uapi.IFLA_VXLAN_LIMIT, v.Limit)
	d.Bytes(uapi.IFLA_VXLAN_PORT, binary.BigEndian.AppendUint16(nil, v.Port))
	for _, f := range []struct {
		t uint16
		v bool
	}{{uapi.IFLA_VXLAN_UDP_CSUM, v.UDPCsum}, {uapi.IFLA_VXLAN_UDP_ZERO_CSUM6_TX, v.UDPZeroCsum6TX},
		{uapi.IFLA_VXLAN_UDP_ZERO_CSUM6_RX, v.UDPZeroCsum6RX}, {uapi.IFLA_VXLAN_REMCSUM_TX, v.RemcsumTX},
		{uapi.IFLA_VXLAN_REMCSUM_RX, v.RemcsumRX}, {uapi.IFLA_VXLAN_LOCALBYPASS, v.LocalBypass}} {
		d.Uint8(f.t, b2u8(f.v))
	}
	d.Bytes(uapi.IFLA_VXLAN_PORT_RANGE, binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, v.PortMin), v.PortMax))
	if v.GBP {
		d.Flag(uapi.IFLA_VXLAN_GBP, true)
	}
	if v.VNIFilter {
		d.Uint8(uapi.IFLA_VXLAN_VNIFILTER, 1)
	}
	d.Bytes(uapi.IFLA_VXLAN_RESERVED_BITS, v.ReservedBits[:])
}
