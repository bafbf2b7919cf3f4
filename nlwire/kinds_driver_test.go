package nlwire_test

// Round trips of what jsimonetti/rtnetlink v2.3.0's drivers encode: a
// bond with every option driver.Bond sends, a bond port's
// driver.BondSlave, a macvlan's driver.Macvlan, and a vlan's driver.Vlan,
// whose IFLA_VLAN_FLAGS and QoS mappings are nested attributes where the
// kernel reads struct ifla_vlan_flags and struct ifla_vlan_qos_mapping
// (vlan_validate, vlan_changelink read the payload's first bytes), so
// that the kernel makes of them what it makes of those bytes.

import (
	"net"
	"syscall"
	"testing"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/jsimonetti/rtnetlink/v2/driver"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/rtnl"
)

func driverConn(t *testing.T) (*rtnetlink.Conn, *rtnl.Handle) {
	t.Helper()
	k := rtnl.MustNewKernel(rtnl.After)
	c, err := nlwire.DialRTNetlink(k.InitNet())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c, k.InitNet().Handle(k.World().NewTask("t"))
}

func newLink(t *testing.T, c *rtnetlink.Conn, name string, index, link uint32, d rtnetlink.LinkDriver) error {
	t.Helper()
	return c.Link.New(&rtnetlink.LinkMessage{Family: 0, Index: index, Attributes: &rtnetlink.LinkAttributes{
		Name: name, Type: link, Info: &rtnetlink.LinkInfo{Kind: d.Kind(), Data: d},
	}})
}

func ptr[T any](v T) *T { return &v }

func TestDriverBondRoundTrip(t *testing.T) {
	c, h := driverConn(t)
	b := &driver.Bond{
		Mode:            driver.BondModeActiveBackup,
		Miimon:          ptr[uint32](100),
		UpDelay:         ptr[uint32](200),
		DownDelay:       ptr[uint32](250), // kept as 2 miimon intervals
		PeerNotifyDelay: ptr[uint32](100),
		UseCarrier:      ptr[uint8](1),
		ArpIpTargets:    []net.IP{net.ParseIP("192.0.2.1"), net.ParseIP("192.0.2.2")},
		NsIP6Targets:    []net.IP{net.ParseIP("2001:db8::1")},
		ArpAllTargets:   ptr(driver.BondArpAllTargetsAll),
		PrimaryReselect: ptr(driver.BondPrimaryReselectBetter),
		FailOverMac:     ptr(driver.BondFailOverMacActive),
		XmitHashPolicy:  ptr(driver.BondXmitHashPolicyLayer3_4),
		ResendIgmp:      ptr[uint32](3),
		NumPeerNotif:    ptr[uint8](2),
		AllSlavesActive: ptr[uint8](1),
		MinLinks:        ptr[uint32](1),
		LpInterval:      ptr[uint32](5),
		MissedMax:       ptr[uint8](4),
	}
	require.NoError(t, newLink(t, c, "bond0", 10, 0, b))
	got, err := c.Link.Get(10)
	require.NoError(t, err)
	gb, ok := got.Attributes.Info.Data.(*driver.Bond)
	require.True(t, ok, "%T", got.Attributes.Info.Data)
	require.Equal(t, driver.BondModeActiveBackup, gb.Mode)
	require.Equal(t, []uint32{100, 200, 200, 100}, []uint32{*gb.Miimon, *gb.UpDelay, *gb.DownDelay, *gb.PeerNotifyDelay})
	require.Equal(t, []net.IP{net.ParseIP("192.0.2.1").To4(), net.ParseIP("192.0.2.2").To4()}, gb.ArpIpTargets)
	require.Equal(t, []net.IP{net.ParseIP("2001:db8::1")}, gb.NsIP6Targets)
	require.Equal(t, driver.BondArpAllTargetsAll, *gb.ArpAllTargets)
	require.Equal(t, driver.BondPrimaryReselectBetter, *gb.PrimaryReselect)
	require.Equal(t, driver.BondFailOverMacActive, *gb.FailOverMac)
	require.Equal(t, driver.BondXmitHashPolicyLayer3_4, *gb.XmitHashPolicy)
	require.Equal(t, []uint32{3, 2, 1, 1, 5, 4}, []uint32{*gb.ResendIgmp, uint32(*gb.NumPeerNotif), uint32(*gb.AllSlavesActive), *gb.MinLinks, *gb.LpInterval, uint32(*gb.MissedMax)})
	require.Nil(t, gb.AdActorSysPrio, "the actor's settings are an 802.3ad bond's only")

	// An option the mode refuses: the kernel's errno and extack.
	err = newLink(t, c, "bond1", 11, 0, &driver.Bond{Mode: driver.BondModeBalanceRR, AdLacpRate: ptr(driver.BondLacpRateFast)})
	require.ErrorIs(t, err, syscall.EACCES) // "option not supported in mode"

	// 802.3ad: the actor's settings are sent.
	require.NoError(t, newLink(t, c, "bond2", 12, 0, &driver.Bond{Mode: driver.BondMode802_3AD,
		AdActorSysPrio: ptr[uint16](100), AdUserPortKey: ptr[uint16](7), AdActorSystem: net.HardwareAddr{2, 0, 0, 0, 0, 9},
		AdLacpRate: ptr(driver.BondLacpRateFast), AdSelect: ptr(driver.BondAdSelectCount)}))
	got, err = c.Link.Get(12)
	require.NoError(t, err)
	gb = got.Attributes.Info.Data.(*driver.Bond)
	require.Equal(t, []uint16{100, 7}, []uint16{*gb.AdActorSysPrio, *gb.AdUserPortKey})
	require.Equal(t, net.HardwareAddr{2, 0, 0, 0, 0, 9}, gb.AdActorSystem)
	require.Equal(t, driver.BondLacpRateFast, *gb.AdLacpRate)
	require.Equal(t, uint32(100), *gb.Miimon, "802.3ad starts MII monitoring")

	// A port's slave data, and bond_slave_changelink through
	// IFLA_INFO_SLAVE_DATA.
	require.NoError(t, h.LinkAdd(netdev.Veth{Name: "e0", Peer: "p0", Attrs: netdev.Attrs{Addr: netdev.MAC{2, 0, 0, 0, 0, 0xe0}}}))
	require.NoError(t, h.LinkSetMaster("e0", "bond0"))
	e0, err := h.LinkByName("e0")
	require.NoError(t, err)
	require.NoError(t, c.Link.Set(&rtnetlink.LinkMessage{Index: uint32(e0.Index), Attributes: &rtnetlink.LinkAttributes{
		Info: &rtnetlink.LinkInfo{SlaveKind: "bond", SlaveData: &driver.BondSlave{QueueId: ptr[uint16](2), Priority: ptr[int32](-3)}},
	}}))
	got, err = c.Link.Get(uint32(e0.Index))
	require.NoError(t, err)
	require.Equal(t, "bond", got.Attributes.Info.SlaveKind)
	s, ok := got.Attributes.Info.SlaveData.(*driver.BondSlave)
	require.True(t, ok, "%T", got.Attributes.Info.SlaveData)
	// MII monitoring finds no carrier (the peer is down): the slave's
	// link is down, and it is no active slave.
	require.Equal(t, driver.BondStateBackup, *s.State)
	require.Equal(t, driver.BondLinkDown, *s.MiiStatus)
	require.Equal(t, net.HardwareAddr{2, 0, 0, 0, 0, 0xe0}, s.PermHardwareAddr)
	require.Equal(t, uint16(2), *s.QueueId)
	require.Equal(t, int32(-3), *s.Priority)
}

func TestDriverMacvlanRoundTrip(t *testing.T) {
	c, h := driverConn(t)
	require.NoError(t, h.LinkAdd(netdev.Veth{Name: "e0", Peer: "p0"}))
	e0, err := h.LinkByName("e0")
	require.NoError(t, err)
	mode, flag := driver.MacvlanModeSource, driver.MacvlanFlagNodst
	require.NoError(t, newLink(t, c, "mv0", 20, uint32(e0.Index), &driver.Macvlan{Mode: &mode, Flags: &flag, BcQueueLen: ptr[uint32](77), BcCutoff: ptr[int32](3)}))
	got, err := c.Link.Get(20)
	require.NoError(t, err)
	m, ok := got.Attributes.Info.Data.(*driver.Macvlan)
	require.True(t, ok, "%T", got.Attributes.Info.Data)
	require.Equal(t, driver.MacvlanModeSource, *m.Mode)
	require.Equal(t, driver.MacvlanFlagNodst, *m.Flags)
	require.Equal(t, uint32(77), *m.BcQueueLen)
	// driver.Macvlan reads IFLA_MACVLAN_BC_QUEUE_LEN_USED, a u32, as a u8
	// and stops there: the cutoff after it is read through the Handle.
	require.Nil(t, m.BcCutoff)
	mv, err := h.LinkByName("mv0")
	require.NoError(t, err)
	require.Equal(t, netdev.MacvlanInfo{Mode: netdev.MacvlanSource, Flags: netdev.MacvlanFlagNoDst, BcQueueLen: 77, BcQueueLenUsed: 77, BcCutoff: 3}, *mv.Macvlan)
	// The source mode's address lists are refused by name.
	mm := driver.MacvlanMacaddrAdd
	err = newLink(t, c, "mv1", 21, uint32(e0.Index), &driver.Macvlan{Mode: &mode, MacaddrMode: &mm, MacaddrData: [][]byte{{2, 0, 0, 0, 0, 1}}})
	require.ErrorIs(t, err, syscall.EOPNOTSUPP)
}

// TestDriverVlanEncoding: driver.Vlan's protocol is the kernel's; its
// nested IFLA_VLAN_FLAGS is read as struct ifla_vlan_flags, its first
// sub-attribute's header (0x00010008) as the flags and the value as the
// mask, so that the flags it names are cleared; its nested QoS mappings
// are read as ifla_vlan_qos_mapping likewise. The result is read
// through the Handle: driver.Vlan cannot decode the kernel's 8-byte
// IFLA_VLAN_FLAGS (it reads it as nested attributes).
func TestDriverVlanEncoding(t *testing.T) {
	c, h := driverConn(t)
	require.NoError(t, h.LinkAdd(netdev.Dummy{Name: "d0"}))
	d0, err := h.LinkByName("d0")
	require.NoError(t, err)
	proto, flags := driver.VlanProtocol8021AD, driver.VlanFlagReorderHdr|driver.VlanFlagGVRP
	require.NoError(t, newLink(t, c, "v0", 30, uint32(d0.Index), &driver.Vlan{ID: ptr[uint16](5), Protocol: &proto, Flags: &flags,
		IngressQos: []driver.VlanQosMapping{{From: 1, To: 0}, {From: 3, To: 2}},
		EgressQos:  []driver.VlanQosMapping{{From: 0, To: 1}, {From: 2, To: 3}}}))
	v, err := h.LinkByName("v0")
	require.NoError(t, err)
	require.Equal(t, netdev.VlanInfo{Protocol: netdev.VlanProto8021AD, ID: 5,
		IngressQoS: []netdev.VlanQoSMapping{{From: 0, To: 3}},
		EgressQoS:  []netdev.VlanQoSMapping{{From: 0x10008, To: 2}}}, *v.Vlan)

}
