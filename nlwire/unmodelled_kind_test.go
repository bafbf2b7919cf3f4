package nlwire

import (
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
)

// TestKindDataRefusedByName: an IFLA_INFO_DATA or IFLA_INFO_SLAVE_DATA
// attribute the kernel acts on and netsim does not model is refused with
// EOPNOTSUPP naming it, never accepted and dropped.
func TestKindDataRefusedByName(t *testing.T) {
	h := testHandle(t)
	require.NoError(t, h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	require.NoError(t, h.LinkAdd(netdev.Bridge{Name: "br0"}))
	require.NoError(t, h.LinkSetMaster("v0", "br0"))
	v0, err := h.LinkByName("v0")
	require.NoError(t, err)
	linkinfo := func(kind string, slave bool, fn func(d *netlink.AttributeEncoder)) []byte {
		return attrBytes(t, func(ae *netlink.AttributeEncoder) {
			ae.Nested(uapi.IFLA_LINKINFO, func(li *netlink.AttributeEncoder) error {
				if slave {
					li.String(uapi.IFLA_INFO_SLAVE_KIND, kind)
					li.Nested(uapi.IFLA_INFO_SLAVE_DATA, func(d *netlink.AttributeEncoder) error { fn(d); return nil })
				} else {
					li.String(uapi.IFLA_INFO_KIND, kind)
					li.Nested(uapi.IFLA_INFO_DATA, func(d *netlink.AttributeEncoder) error { fn(d); return nil })
				}
				return nil
			})
		})
	}
	_, err = serve(t, h, rt.RTMNewLink, 0, append(ifi(int32(v0.Index), 0, 0), linkinfo("bridge", true, func(d *netlink.AttributeEncoder) {
		d.Uint8(uapi.IFLA_BRPORT_MAB, 1)
	})...), false)
	require.ErrorIs(t, err, syscall.EOPNOTSUPP)
	require.Equal(t, "IFLA_BRPORT_MAB is not modelled by netsim", extackMsg(err))

	// A source macvlan's address list.
	_, err = serve(t, h, rt.RTMNewLink, createExcl, append(ifi(0, 0, 0), append(attrBytes(t, func(ae *netlink.AttributeEncoder) {
		ae.String(uapi.IFLA_IFNAME, "mv0")
		ae.Uint32(uapi.IFLA_LINK, uint32(v0.Index))
	}), linkinfo("macvlan", false, func(d *netlink.AttributeEncoder) {
		d.Uint32(uapi.IFLA_MACVLAN_MODE, uapi.MACVLAN_MODE_SOURCE)
		d.Uint32(uapi.IFLA_MACVLAN_MACADDR_MODE, 0)
		d.Bytes(uapi.IFLA_MACVLAN_MACADDR, []byte{2, 0, 0, 0, 0, 1})
	})...)...), false)
	require.ErrorIs(t, err, syscall.EOPNOTSUPP)
	require.Contains(t, extackMsg(err), "IFLA_MACVLAN_MACADDR_MODE")
	_, err = h.LinkByName("mv0")
	require.Error(t, err, "a refused creation made the device")

	// A bond's miimon is kept, not dropped.
	_, err = serve(t, h, rt.RTMNewLink, createExcl, append(ifi(0, 0, 0), append(attrBytes(t, func(ae *netlink.AttributeEncoder) {
		ae.String(uapi.IFLA_IFNAME, "b0")
	}), linkinfo("bond", false, func(d *netlink.AttributeEncoder) {
		d.Uint32(uapi.IFLA_BOND_MIIMON, 150)
	})...)...), false)
	require.NoError(t, err)
	b0, err := h.LinkByName("b0")
	require.NoError(t, err)
	require.Equal(t, uint32(150), b0.Bond.Miimon)
}
