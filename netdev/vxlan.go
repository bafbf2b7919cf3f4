// vxlan devices, their control plane: the configuration a request sets
// (struct vxlan_config) and its checks, the device's MTU and headroom from
// its lower device, the VNI each (port, family) may hold once, changelink,
// and the vxlans a lower device takes with it when it goes. The forwarding
// database and VNI filtering tables are not modelled
// (drivers/net/vxlan/vxlan_core.c: vxlan_setup, vxlan_validate,
// vxlan_nl2conf, vxlan_config_validate, vxlan_config_apply,
// __vxlan_dev_create, vxlan_changelink, vxlan_change_mtu,
// vxlan_handle_lowerdev_unregister; include/net/vxlan.h).

package netdev

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// VxlanDF is a vxlan's don't-fragment policy (enum ifla_vxlan_df).
type VxlanDF uint8

const (
	VxlanDFUnset   VxlanDF = 0 // VXLAN_DF_UNSET, the default
	VxlanDFSet     VxlanDF = 1 // VXLAN_DF_SET
	VxlanDFInherit VxlanDF = 2 // VXLAN_DF_INHERIT
)

// VxlanSettings are the IFLA_VXLAN_* attributes of a request that creates
// or changes a vxlan (`ip link add|set ... type vxlan ...`). A nil field is
// an attribute the request does not carry.
type VxlanSettings struct {
	// Data: the request carries IFLA_INFO_DATA (vxlan_validate refuses
	// a request without it, for a new device and an existing one).
	Data bool

	ID *uint32 // IFLA_VXLAN_ID
	// Group is IFLA_VXLAN_GROUP (an IPv4 address) or, without it,
	// IFLA_VXLAN_GROUP6: the remote or multicast group; Local likewise
	// IFLA_VXLAN_LOCAL or IFLA_VXLAN_LOCAL6.
	Group, Local *netip.Addr
	Link         *IfIndex // IFLA_VXLAN_LINK: the lower device, in the requester's namespace
	TOS, TTL     *uint8   // IFLA_VXLAN_TOS (1 is inherit), IFLA_VXLAN_TTL (0 is auto)
	TTLInherit   bool     // IFLA_VXLAN_TTL_INHERIT (a flag)
	// Label is IFLA_VXLAN_LABEL, the IPv6 flow label (the attribute is
	// big-endian; the kernel keeps its low 20 bits).
	Label                                   *uint32
	Learning, Proxy, RSC, L2Miss, L3Miss    *bool      // IFLA_VXLAN_LEARNING, _PROXY, _RSC, _L2MISS, _L3MISS
	Ageing, Limit                           *uint32    // IFLA_VXLAN_AGEING (seconds, 0 the default 300), IFLA_VXLAN_LIMIT
	CollectMetadata                         *bool      // IFLA_VXLAN_COLLECT_METADATA (`external`)
	PortRange                               *[2]uint16 // IFLA_VXLAN_PORT_RANGE: low, high
	Port                                    *uint16    // IFLA_VXLAN_PORT (0 is the default 8472)
	UDPCsum, UDPZeroCsum6TX, UDPZeroCsum6RX *bool      // IFLA_VXLAN_UDP_CSUM, _UDP_ZERO_CSUM6_TX, _RX
	RemcsumTX, RemcsumRX                    *bool      // IFLA_VXLAN_REMCSUM_TX, _RX
	GBP, GPE, RemcsumNoPartial              bool       // the flags IFLA_VXLAN_GBP, _GPE, _REMCSUM_NOPARTIAL
	DF                                      *uint8     // IFLA_VXLAN_DF
	VNIFilter                               *bool      // IFLA_VXLAN_VNIFILTER
	LocalBypass                             *bool      // IFLA_VXLAN_LOCALBYPASS
	LabelPolicy                             *uint32    // IFLA_VXLAN_LABEL_POLICY
	MCRoute                                 *bool      // IFLA_VXLAN_MC_ROUTE
	ReservedBits                            bool       // IFLA_VXLAN_RESERVED_BITS
}

// VxlanInfo is what a vxlan reports in IFLA_INFO_DATA (vxlan_fill_info).
// Remote and Local are always valid addresses of the device's family; an
// unspecified one is not reported.
type VxlanInfo struct {
	VNI                                  uint32
	Remote, Local                        netip.Addr
	LinkIndex                            IfIndex // remote_ifindex, 0 for none
	TTL                                  uint8
	TTLInherit                           bool
	TOS                                  uint8
	DF                                   VxlanDF
	Label                                uint32
	Learning, Proxy, RSC, L2Miss, L3Miss bool
	CollectMetadata                      bool
	Ageing, Limit                        uint32
	Port                                 uint16
	UDPCsum                              bool
	UDPZeroCsum6TX, UDPZeroCsum6RX       bool
	RemcsumTX, RemcsumRX                 bool
	LocalBypass                          bool
	PortMin, PortMax                     uint16
	GBP, VNIFilter                       bool
	ReservedBits                         [8]byte // struct vxlanhdr: the header bits a received packet may not set
}

// Vxlan is a vxlan device (drivers/net/vxlan): Settings as its
// IFLA_INFO_DATA carries them, with Settings.Data set. Settings.Link names
// the lower device in LinkTable (nil: the vxlan's own namespace).
type Vxlan struct {
	Name string
	Attrs
	Settings  VxlanSettings
	LinkTable *Table
}

func (s Vxlan) LinkName() string { return s.Name }
func (s Vxlan) LinkAttrs() Attrs { return s.Attrs }

// vxlanState is a vxlan's private state (struct vxlan_dev). remote is the
// index the vxlan reports as its lower device and vxlan_change_mtu looks
// up; it changes only with the lower device, so that a changelink's
// IFLA_VXLAN_LINK of 0 changes cfg's index alone.
type vxlanState struct {
	cfg      VxlanInfo
	ipv6     bool    // VXLAN_F_IPV6
	lower    *Device // default_dst.remote_dev, the lower device it is linked to
	remote   IfIndex // default_dst.remote_ifindex
	linkNet  *Table  // vxlan->net, where the lower device is looked up
	headroom int     // needed_headroom
	tsoMax   uint32  // tso_max_size, copied from the lower device
}

// Constants of the vxlan driver.
const (
	vxlanNVID        = 1 << 24 // VXLAN_N_VID
	vxlanDefaultPort = 8472    // vxlan_port, the module parameter's default
	vxlanAgeDefault  = 300     // FDB_AGE_DEFAULT, seconds
	ethHLen          = 14      // ETH_HLEN
	flowLabelMask    = 0xfffff // IPV6_FLOWLABEL_MASK
)

// vxlanHeadroom is the encapsulation's overhead: the outer IP header, UDP,
// the VXLAN header and the inner Ethernet header.
//
// Kernel: vxlan_headroom (include/net/vxlan.h).
func vxlanHeadroom(ipv6 bool) int {
	if ipv6 {
		return 40 + 8 + 8 + ethHLen
	}
	return 20 + 8 + 8 + ethHLen
}

var vxlanOps = &linkOps{
	kind:      "vxlan",
	operUp:    OperUnknown,
	setRxMode: func(*sim.Task, *Device) {}, // vxlan_set_multicast_list
	dellink:   vxlanDellink,
	uninit:    func(_ *sim.Task, d *Device) { d.vxlanUnlink() },
	changeMTU: vxlanChangeMTU,
}

// ValidateVxlan is vxlan_validate: the request's IFLA_ADDRESS (addr, when
// it carries one) and IFLA_MTU (mtu) and its IFLA_INFO_DATA, checked before
// any device is looked up. The length of IFLA_ADDRESS is the front end's
// to check.
//
// Kernel: vxlan_validate (drivers/net/vxlan/vxlan_core.c).
func ValidateVxlan(s VxlanSettings, addr *MAC, mtu *int) error {
	if addr != nil && (addr.IsMulticast() || *addr == (MAC{})) {
		return errno.New(syscall.EADDRNOTAVAIL, "Provided Ethernet address is not unicast").At("tb[IFLA_ADDRESS]")
	}
	if mtu != nil && (uint32(*mtu) < ethMinMTU || uint32(*mtu) > ethMaxMTU) {
		return errno.New(syscall.EINVAL, "MTU must be between 68 and 65535").At("tb[IFLA_MTU]")
	}
	if !s.Data {
		return errno.New(syscall.EINVAL, "Required attributes not provided to perform the operation")
	}
	if s.ID != nil && *s.ID >= vxlanNVID {
		return errno.New(syscall.ERANGE, "VXLAN ID must be lower than 16777216").At("data[IFLA_VXLAN_ID]")
	}
	if r := s.PortRange; r != nil && r[1] < r[0] {
		return errno.New(syscall.EINVAL, "Invalid source port range").At("data[IFLA_VXLAN_PORT_RANGE]")
	}
	if s.DF != nil && *s.DF > uint8(VxlanDFInherit) {
		return errno.New(syscall.EINVAL, "Invalid DF attribute").At("data[IFLA_VXLAN_DF]")
	}
	return nil
}

func (s Vxlan) validate(*Table) error {
	var addr *MAC
	if s.Addr != (MAC{}) {
		addr = &s.Addr
	}
	mtu, ok := s.Attrs.mtu()
	if !ok {
		return ValidateVxlan(s.Settings, addr, nil)
	}
	return ValidateVxlan(s.Settings, addr, &mtu)
}

// Used header bits (struct vxlanhdr, as big-endian words): the flags word
// and the VNI word.
const (
	vxlanHFVNI       = 0x08000000 // VXLAN_HF_VNI
	vxlanVNIMask     = 0xffffff00 // VXLAN_VNI_MASK
	vxlanHFRCO       = 0x00200000 // VXLAN_HF_RCO
	vxlanGBPUsedBits = 0x80ffffff // VXLAN_GBP_USED_BITS
)

// vxlanFlag applies a u8 flag attribute, refusing it on changelink: the
// flags the kernel lets change (localbypass, mc_route) are not modelled
// beyond their defaults, and are not read through it.
//
// Kernel: vxlan_nl2flag, vxlan_flag_attr_error (include/net/vxlan.h).
func vxlanFlag(dst *bool, v *bool, name string, changelink bool) error {
	if v == nil {
		return nil
	}
	if changelink {
		return errno.Errorf(syscall.EOPNOTSUPP, "vxlan: cannot change %s flag", name)
	}
	*dst = *v
	return nil
}

// vxlanConf is the configuration a request makes (struct vxlan_config):
// the reported values, the families asked for, the MTU.
type vxlanConf struct {
	VxlanInfo
	mtu int  // conf->mtu, 0 for none
	gpe bool // VXLAN_F_GPE
}

// nl2conf builds the configuration a request asks for: from nothing for a
// new device (learning on), from old for a changelink, which refuses what
// the kernel cannot change. mtuAttr is whether the request carries
// IFLA_MTU (mtu its value).
//
// Kernel: vxlan_nl2conf (drivers/net/vxlan/vxlan_core.c).
func (s VxlanSettings) nl2conf(old *VxlanInfo, mtuAttr bool, mtu int) (vxlanConf, error) {
	var c vxlanConf
	changelink := old != nil
	if changelink {
		c.VxlanInfo = *old
	}
	usedFlags, usedVNI := uint32(vxlanHFVNI), uint32(vxlanVNIMask)
	if s.ID != nil {
		if changelink && *s.ID != c.VNI {
			return c, errno.New(syscall.EOPNOTSUPP, "Cannot change VNI").At("tb[IFLA_VXLAN_ID]")
		}
		c.VNI = *s.ID
	}
	if g := s.Group; g != nil {
		if changelink && g.Is4() != c.Remote.Is4() {
			// vxlan_nl2conf points at tb[], the message's own table,
			// indexed by the vxlan attribute's number.
			at := "tb[IFLA_VXLAN_GROUP6]"
			if g.Is4() {
				at = "tb[IFLA_VXLAN_GROUP]"
			}
			return c, errno.New(syscall.EOPNOTSUPP, "New group address family does not match old group").At(at)
		}
		c.Remote = *g
	}
	if l := s.Local; l != nil {
		if changelink && l.Is4() != c.Local.Is4() {
			at := "tb[IFLA_VXLAN_LOCAL6]"
			if l.Is4() {
				at = "tb[IFLA_VXLAN_LOCAL]"
			}
			return c, errno.New(syscall.EOPNOTSUPP, "New local address family does not match old").At(at)
		}
		c.Local = *l
	}
	if s.Link != nil {
		c.LinkIndex = *s.Link
	}
	if s.TOS != nil {
		c.TOS = *s.TOS
	}
	if s.TTL != nil {
		c.TTL = *s.TTL
	}
	if s.TTLInherit {
		if err := vxlanFlag(&c.TTLInherit, new(true), "TTL_INHERIT", changelink); err != nil {
			return c, err
		}
	}
	if s.Label != nil {
		c.Label = *s.Label & flowLabelMask
	}
	if s.Learning != nil {
		c.Learning = *s.Learning
	} else if !changelink {
		c.Learning = true
	}
	if s.Ageing != nil {
		c.Ageing = *s.Ageing
	}
	for _, f := range []struct {
		dst  *bool
		v    *bool
		name string
	}{{&c.Proxy, s.Proxy, "PROXY"}, {&c.RSC, s.RSC, "RSC"}, {&c.L2Miss, s.L2Miss, "L2MISS"}, {&c.L3Miss, s.L3Miss, "L3MISS"}} {
		if err := vxlanFlag(f.dst, f.v, f.name, changelink); err != nil {
			return c, err
		}
	}
	if s.Limit != nil {
		if changelink {
			return c, errno.New(syscall.EOPNOTSUPP, "Cannot change limit").At("tb[IFLA_VXLAN_LIMIT]")
		}
		c.Limit = *s.Limit
	}
	if err := vxlanFlag(&c.CollectMetadata, s.CollectMetadata, "COLLECT_METADATA", changelink); err != nil {
		return c, err
	}
	if r := s.PortRange; r != nil {
		if changelink {
			return c, errno.New(syscall.EOPNOTSUPP, "Cannot change port range").At("tb[IFLA_VXLAN_PORT_RANGE]")
		}
		c.PortMin, c.PortMax = r[0], r[1]
	}
	if s.Port != nil {
		if changelink {
			return c, errno.New(syscall.EOPNOTSUPP, "Cannot change port").At("tb[IFLA_VXLAN_PORT]")
		}
		c.Port = *s.Port
	}
	if s.UDPCsum != nil {
		if changelink {
			return c, errno.New(syscall.EOPNOTSUPP, "Cannot change UDP_CSUM flag").At("tb[IFLA_VXLAN_UDP_CSUM]")
		}
		c.UDPCsum = *s.UDPCsum
	} else if !changelink {
		c.UDPCsum = true
	}
	for _, f := range []struct {
		dst  *bool
		v    *bool
		name string
	}{{&c.UDPZeroCsum6TX, s.UDPZeroCsum6TX, "UDP_ZERO_CSUM6_TX"}, {&c.UDPZeroCsum6RX, s.UDPZeroCsum6RX, "UDP_ZERO_CSUM6_RX"},
		{&c.RemcsumTX, s.RemcsumTX, "REMCSUM_TX"}, {&c.RemcsumRX, s.RemcsumRX, "REMCSUM_RX"}} {
		if err := vxlanFlag(f.dst, f.v, f.name, changelink); err != nil {
			return c, err
		}
	}
	if s.RemcsumRX != nil {
		usedFlags |= vxlanHFRCO
		usedVNI |= ^uint32(vxlanVNIMask)
	}
	if s.GBP {
		if err := vxlanFlag(&c.GBP, new(true), "GBP", changelink); err != nil {
			return c, err
		}
		usedFlags |= vxlanGBPUsedBits
	}
	if s.GPE {
		if changelink {
			return c, errno.New(syscall.EOPNOTSUPP, "vxlan: cannot change GPE flag")
		}
		c.gpe = true // GPE asked for: refused by configValidate
	}
	if s.ReservedBits {
		return c, errno.New(syscall.EOPNOTSUPP, "IFLA_VXLAN_RESERVED_BITS is not modelled by netsim").At("data[IFLA_VXLAN_RESERVED_BITS]")
	}
	binary.BigEndian.PutUint32(c.ReservedBits[:4], ^usedFlags)
	binary.BigEndian.PutUint32(c.ReservedBits[4:], ^usedVNI)
	if s.RemcsumNoPartial {
		return c, errno.New(syscall.EOPNOTSUPP, "remcsum nopartial is not offered").At("data[IFLA_VXLAN_REMCSUM_NOPARTIAL]")
	}
	if mtuAttr {
		if changelink {
			return c, errno.New(syscall.EOPNOTSUPP, "Cannot change mtu").At("tb[IFLA_MTU]")
		}
		c.mtu = mtu
	}
	if s.DF != nil {
		c.DF = VxlanDF(*s.DF)
	}
	if s.VNIFilter != nil {
		if err := vxlanFlag(&c.VNIFilter, s.VNIFilter, "VNIFILTER", changelink); err != nil {
			return c, err
		}
		if c.VNIFilter && !c.CollectMetadata {
			return c, errno.New(syscall.EINVAL, "vxlan vnifilter only valid in collect metadata mode").At("data[IFLA_VXLAN_VNIFILTER]")
		}
	}
	if s.LocalBypass != nil && !*s.LocalBypass {
		return c, errno.New(syscall.EOPNOTSUPP, "IFLA_VXLAN_LOCALBYPASS 0 is not modelled by netsim").At("data[IFLA_VXLAN_LOCALBYPASS]")
	}
	if !changelink {
		c.LocalBypass = true
	}
	if s.LabelPolicy != nil && *s.LabelPolicy != 0 {
		return c, errno.New(syscall.EOPNOTSUPP, "IFLA_VXLAN_LABEL_POLICY inherit is not modelled by netsim").At("data[IFLA_VXLAN_LABEL_POLICY]")
	}
	if s.MCRoute != nil && *s.MCRoute {
		return c, errno.New(syscall.EOPNOTSUPP, "IFLA_VXLAN_MC_ROUTE is not modelled by netsim").At("data[IFLA_VXLAN_MC_ROUTE]")
	}
	return c, nil
}

// configValidate checks a configuration against the namespace it lives in
// (src, where the lower device is looked up and VNIs are unique), fills in
// the families and defaults, and returns the lower device. self is the
// device a changelink changes, nil for a new one. The VNI check walks the
// namespace's vxlans, charged to t (sim.VxlanVNIScan).
//
// Kernel: vxlan_config_validate, vxlan_vni_in_use
// (drivers/net/vxlan/vxlan_core.c).
func (c *vxlanConf) configValidate(t *sim.Task, src *Table, self *Device) (*Device, bool, error) {
	if c.gpe {
		// VXLAN_F_GPE is allowed only with COLLECT_METADATA and the
		// flags VXLAN_F_ALLOWED_GPE; netsim models no GPE device (its
		// ARPHRD_NONE setup).
		if !c.CollectMetadata || c.Learning || c.Proxy || c.RSC || c.L2Miss || c.L3Miss || c.GBP ||
			c.RemcsumTX || c.RemcsumRX || c.VNIFilter || c.TTLInherit {
			return nil, false, errno.New(syscall.EINVAL, "VXLAN GPE does not support this combination of attributes")
		}
		return nil, false, errno.New(syscall.EOPNOTSUPP, "IFLA_VXLAN_GPE is not modelled by netsim").At("data[IFLA_VXLAN_GPE]")
	}
	switch {
	case !c.Remote.IsValid() && !c.Local.IsValid():
		c.Remote, c.Local = netip.IPv4Unspecified(), netip.IPv4Unspecified()
	case !c.Remote.IsValid():
		c.Remote = unspecifiedLike(c.Local)
	case !c.Local.IsValid():
		c.Local = unspecifiedLike(c.Remote)
	}
	if c.Local.Is4() != c.Remote.Is4() {
		return nil, false, errno.New(syscall.EINVAL, "Local and remote address must be from the same family")
	}
	if c.Local.IsMulticast() {
		return nil, false, errno.New(syscall.EINVAL, "Local address cannot be multicast")
	}
	ipv6 := c.Local.Is6()
	linkLocal := false
	if ipv6 && !c.CollectMetadata {
		if c.Local.IsLinkLocalUnicast() {
			if !c.Remote.IsLinkLocalUnicast() && !c.Remote.IsLinkLocalMulticast() && !c.Remote.IsUnspecified() {
				return nil, false, errno.New(syscall.EINVAL, "Invalid combination of local and remote address scopes")
			}
			linkLocal = true
		} else if c.Remote.IsLinkLocalUnicast() {
			return nil, false, errno.New(syscall.EINVAL, "Invalid combination of local and remote address scopes")
		}
	}
	if c.Label != 0 && !ipv6 {
		return nil, false, errno.New(syscall.EINVAL, "Label attribute only applies to IPv6 VXLAN devices")
	}
	var lower *Device
	if c.LinkIndex != 0 {
		lower = src.ByIndex(c.LinkIndex)
		if lower == nil {
			return nil, false, errno.New(syscall.ENODEV, "Invalid local interface, device not found")
		}
		if ipv6 && lower.ipv6Disabled() {
			return nil, false, errno.New(syscall.EPERM, "IPv6 support disabled by administrator")
		}
	} else {
		if c.Remote.IsMulticast() {
			return nil, false, errno.New(syscall.EINVAL, "Local interface required for multicast remote destination")
		}
		if linkLocal {
			return nil, false, errno.New(syscall.EINVAL, "Local interface required for link-local local/remote addresses")
		}
	}
	if c.Port == 0 {
		c.Port = vxlanDefaultPort
	}
	if c.Ageing == 0 {
		c.Ageing = vxlanAgeDefault
	}
	// vxlan_vni_in_use: one device per VNI, destination port and
	// receive flags (VXLAN_F_RCV_FLAGS and the family); with link-local
	// addresses, per lower device too.
	scanned := 0
	defer func() { t.Charge(sim.VxlanVNIScan, int64(scanned)) }()
	for _, d := range src.vxlans {
		scanned++
		o := d.priv.vxlan
		if d == self || o.cfg.VNI != c.VNI || o.cfg.Port != c.Port || o.ipv6 != ipv6 || !sameRcvFlags(&o.cfg, &c.VxlanInfo) {
			continue
		}
		if linkLocal && o.cfg.LinkIndex != c.LinkIndex {
			continue
		}
		return nil, false, errno.New(syscall.EEXIST, "A VXLAN device with the specified VNI already exists")
	}
	return lower, ipv6, nil
}

// ipv6Disabled reports whether the device's inet6_dev has disable_ipv6
// set. netsim gives a device registered while default.disable_ipv6 is set
// no inet6_dev (the kernel gives it one with disable_ipv6 set): a device
// without one whose MTU allows IPv6 stands for that.
func (d *Device) ipv6Disabled() bool {
	if d.inet6 != nil {
		return d.inet6.cnf.DisableIPv6
	}
	return d.mtu >= IPv6MinMTU
}

// sameRcvFlags compares the flags of VXLAN_F_RCV_FLAGS that netsim
// models (GBP, UDP_ZERO_CSUM6_RX, REMCSUM_RX, COLLECT_METADATA,
// VNIFILTER).
func sameRcvFlags(a, b *VxlanInfo) bool {
	return a.GBP == b.GBP && a.UDPZeroCsum6RX == b.UDPZeroCsum6RX && a.RemcsumRX == b.RemcsumRX &&
		a.CollectMetadata == b.CollectMetadata && a.VNIFilter == b.VNIFilter
}

func unspecifiedLike(a netip.Addr) netip.Addr {
	if a.Is4() {
		return netip.IPv4Unspecified()
	}
	return netip.IPv6Unspecified()
}

// apply installs a validated configuration: the MTU (a new device's from
// its lower device, cut to what the lower allows), the headroom, and the
// lower device's index and TSO limit. A changelink passes no lower device
// unless the lower changes; without one the headroom is the
// encapsulation's alone and the MTU is not cut.
//
// Kernel: vxlan_config_apply (drivers/net/vxlan/vxlan_core.c).
func (d *Device) vxlanApply(c vxlanConf, lower *Device, ipv6, changelink bool) {
	v := d.priv.vxlan
	if !changelink && c.mtu != 0 {
		d.mtu = c.mtu
	}
	headroom := ethHLen
	maxMTU := ethMaxMTU
	if lower != nil {
		headroom = ethHLen + lower.Headroom()
		maxMTU = max(lower.mtu-vxlanHeadroom(ipv6), ethMinMTU)
		if !changelink && c.mtu == 0 {
			d.mtu = maxMTU
		}
	}
	d.mtu = min(d.mtu, maxMTU)
	if lower != nil {
		v.remote = c.LinkIndex
		v.tsoMax = lower.TSOMaxSize() // netif_inherit_tso_max
	} else if !changelink {
		v.tsoMax = TSOLegacyMaxSize
	}
	v.headroom = headroom + vxlanHeadroom(ipv6 || c.CollectMetadata)
	v.cfg, v.ipv6 = c.VxlanInfo, ipv6
}

// Headroom returns the device's needed_headroom (IFLA_HEADROOM): a
// vxlan's, 0 for the others.
func (d *Device) Headroom() int {
	if v := d.priv.vxlan; v != nil {
		return v.headroom
	}
	return 0
}

// create builds a vxlan device: Ethernet setup with a random address,
// IFF_BROADCAST|IFF_MULTICAST, MTU range 68 to 65535, no qdisc; then the
// request's configuration, validated against the namespace.
//
// Kernel: vxlan_setup, vxlan_newlink, __vxlan_dev_create (before
// register_netdevice).
func (s Vxlan) create(t *sim.Task, tb *Table) ([]*Device, error) {
	name, err := tb.checkLinkName(s.Name, "vxlan", nil)
	if err != nil {
		return nil, err
	}
	d, err := tb.newDevice(name, vxlanOps, s.Attrs, FlagBroadcast|FlagMulticast, ethDataLen, ethMinMTU, ethMaxMTU)
	if err != nil {
		return nil, err
	}
	mtu, hasMTU := s.Attrs.mtu()
	c, err := s.Settings.nl2conf(nil, hasMTU, mtu)
	if err != nil {
		return nil, err
	}
	src := tb
	if s.LinkTable != nil {
		src = s.LinkTable
	}
	lower, ipv6, err := c.configValidate(t, src, nil)
	if err != nil {
		return nil, err
	}
	d.priv.vxlan = &vxlanState{linkNet: src}
	d.vxlanApply(c, lower, ipv6, false)
	d.priv.vxlan.lower = lower
	return []*Device{d}, nil
}

// vxlanLinkLower is what __vxlan_dev_create does once the device is
// registered: it joins the namespace's list of vxlans and links to its
// lower device (netdev_upper_dev_link, whose NETDEV_CHANGEUPPER announces
// the lower).
func (d *Device) vxlanLinkLower(t *sim.Task) {
	v := d.priv.vxlan
	v.linkNet.vxlans = append(v.linkNet.vxlans, d)
	if v.lower != nil {
		v.lower.priv.vxlanUppers = append(v.lower.priv.vxlanUppers, d)
		d.tbl.s.linkMsg(t, v.lower, false, 0, false)
	}
}

// vxlanDellink queues the vxlan, and its lower device's
// NETDEV_CHANGEUPPER of the unlink announces the lower at once, unless the
// lower is going too (netsim takes the vxlan off the lists at ndo_uninit).
//
// Kernel: vxlan_dellink (drivers/net/vxlan/vxlan_core.c):
// netdev_upper_dev_unlink → rtnetlink_event.
func vxlanDellink(t *sim.Task, d *Device, q *[]*Device) {
	*q = append(*q, d)
	if l := d.priv.vxlan.lower; l != nil && l.state == regRegistered {
		d.tbl.s.linkMsg(t, l, false, 0, false)
	}
}

// vxlanUnlink takes a vxlan that is going away off its namespace's list and
// its lower device's.
func (d *Device) vxlanUnlink() {
	v := d.priv.vxlan
	v.linkNet.vxlans = slices.DeleteFunc(v.linkNet.vxlans, func(u *Device) bool { return u == d })
	if v.lower != nil {
		v.lower.priv.vxlanUppers = slices.DeleteFunc(v.lower.priv.vxlanUppers, func(u *Device) bool { return u == d })
	}
}

// vxlanChangeMTU is vxlan_change_mtu: with a lower device, an MTU above
// the lower's less the encapsulation is refused (a bare EINVAL).
func vxlanChangeMTU(d *Device, mtu int) error {
	v := d.priv.vxlan
	if l := v.linkNet.ByIndex(v.remote); l != nil && mtu > l.mtu-vxlanHeadroom(v.ipv6) {
		return errno.New(syscall.EINVAL, "")
	}
	return nil
}

// VxlanInfo returns a vxlan's IFLA_INFO_DATA, or nil for other kinds.
func (d *Device) VxlanInfo() *VxlanInfo {
	if v := d.priv.vxlan; v != nil {
		info := v.cfg
		info.LinkIndex = v.remote
		return &info
	}
	return nil
}

// VxlanLower returns the device a vxlan's default destination goes
// through (its lower device), or nil.
func (d *Device) VxlanLower() *Device {
	if v := d.priv.vxlan; v != nil {
		return v.lower
	}
	return nil
}

// ChangeVxlan applies a changelink's IFLA_INFO_DATA to a vxlan: what
// vxlan_nl2conf lets change (ttl, tos, df, flowlabel, learning, ageing,
// remote, local, the lower device), validated as a new configuration is,
// with the link to the lower device moved. mtuAttr is whether the request
// carries IFLA_MTU, which a changelink refuses. Nothing changes if it
// fails.
//
// Kernel: vxlan_changelink (drivers/net/vxlan/vxlan_core.c).
func (d *Device) ChangeVxlan(t *sim.Task, s VxlanSettings, mtuAttr bool) error {
	v := d.priv.vxlan
	if v == nil {
		return errno.New(syscall.EOPNOTSUPP, "") // rtnl_changelink: another kind's ops
	}
	c, err := s.nl2conf(&v.cfg, mtuAttr, 0)
	if err != nil {
		return err
	}
	lower, ipv6, err := c.configValidate(t, v.linkNet, d)
	if err != nil {
		return err
	}
	old := v.lower
	if lower == old {
		// The same lower device counts as none: apply then leaves the
		// reported index, the MTU limit and the headroom's share of the
		// lower as they are (the MTU is not cut to what the lower allows
		// now).
		lower = nil
	}
	if lower != nil {
		// netdev_adjacent_change_commit: the link moves, each lower
		// announced.
		if old != nil {
			old.priv.vxlanUppers = slices.DeleteFunc(old.priv.vxlanUppers, func(u *Device) bool { return u == d })
			d.tbl.s.linkMsg(t, old, false, 0, false)
		}
		lower.priv.vxlanUppers = append(lower.priv.vxlanUppers, d)
		d.tbl.s.linkMsg(t, lower, false, 0, false)
		v.lower = lower
	}
	d.vxlanApply(c, lower, ipv6, true)
	return nil
}

// vxlanLowerGone deletes, in a nested batch, the vxlans whose lower device
// d is leaving its namespace (unregistered or moved), the most recently
// created first.
//
// Kernel: vxlan_netdevice_event NETDEV_UNREGISTER →
// vxlan_handle_lowerdev_unregister (drivers/net/vxlan/vxlan_core.c).
func vxlanLowerGone(t *sim.Task, d *Device) {
	if len(d.priv.vxlanUppers) == 0 {
		return
	}
	var q []*Device
	for _, u := range slices.Backward(slices.Clone(d.priv.vxlanUppers)) {
		if u.state == regRegistered {
			u.ops.dellink(t, u, &q)
		}
	}
	d.tbl.s.UnregisterMany(t, q)
}
