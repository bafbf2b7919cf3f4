package nlwire

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
)

func ifa(family, plen uint8, index uint32) []byte {
	return ifaddrmsg{family: family, prefixlen: plen, index: index}.marshal()
}

// TestAddrMessagesMatchKernel replays requests whose answers the real
// kernel gave (Linux 6.18): v0 (ifindex 3) up with 10.0.0.1/24 brd + and
// 2001:db8::1/64 nodad; then the errors of bad requests.
func TestAddrMessagesMatchKernel(t *testing.T) {
	h := testHandle(t)
	setupLinks(t, h) // v0 is ifindex 3, up
	add := func(body []byte) error {
		_, err := serve(t, h, rt.RTMNewAddr, createExcl|netlink.Acknowledge, body, false)
		return err
	}
	require.NoError(t, add(append(ifa(uapi.AF_INET, 24, 3), attrBytes(t, func(ae *netlink.AttributeEncoder) {
		ae.Bytes(uapi.IFA_LOCAL, []byte{10, 0, 0, 1})
		ae.Bytes(uapi.IFA_ADDRESS, []byte{10, 0, 0, 1})
		ae.Bytes(uapi.IFA_BROADCAST, []byte{10, 0, 0, 255})
	})...)))
	v6 := netip.MustParseAddr("2001:db8::1").AsSlice()
	require.NoError(t, add(append(ifa(uapi.AF_INET6, 64, 3), attrBytes(t, func(ae *netlink.AttributeEncoder) {
		ae.Bytes(uapi.IFA_LOCAL, v6)
		ae.Uint32(uapi.IFA_FLAGS, uapi.IFA_F_NODAD)
	})...)))

	msgs, err := serve(t, h, rt.RTMGetAddr, netlink.Dump, ifa(0, 0, 0), true)
	require.NoError(t, err)
	var got []rtnetlink.AddressMessage
	for _, m := range msgs {
		{
			var am rtnetlink.AddressMessage
			require.NoError(t, am.UnmarshalBinary(m.Data))
			if am.Index == 3 {
				got = append(got, am)
				order := attrTypes(t, m.Data[ifaddrmsgLen:])
				if am.Family == uapi.AF_INET {
					assert.Equal(t, []uint16{1, 2, 4, 3, 8, 6}, order)
					assert.Equal(t, []byte{2, 24, 0x80, 0, 3, 0, 0, 0}, m.Data[:8])
				} else if am.Attributes.Address.String() == "2001:db8::1" {
					assert.Equal(t, []uint16{1, 6, 8}, order)
					assert.Equal(t, []byte{10, 64, 0x82, 0, 3, 0, 0, 0}, m.Data[:8])
				}
			}
		}
	}
	require.NotEmpty(t, got)
	assert.Equal(t, uint8(uapi.AF_INET), got[0].Family, "IPv4 first (rtnl_dump_all)")
	assert.Equal(t, "10.0.0.1", got[0].Attributes.Local.String())
	assert.Equal(t, "10.0.0.255", got[0].Attributes.Broadcast.String())
	assert.Equal(t, "v0", got[0].Attributes.Label)
	assert.Equal(t, uint32(0xffffffff), got[0].Attributes.CacheInfo.Valid)

	local := func(a ...byte) []byte {
		return attrBytes(t, func(ae *netlink.AttributeEncoder) { ae.Bytes(uapi.IFA_LOCAL, a) })
	}
	assertErr(t, add(ifa(uapi.AF_INET, 24, 3)), syscall.EINVAL, "ipv4: Local address is not supplied")
	assertErr(t, add(ifa(uapi.AF_INET, 33, 3)), syscall.EINVAL, "ipv4: Invalid prefix length")
	assertErr(t, add(append(ifa(uapi.AF_INET, 24, 3), local(10, 0, 0, 1)...)), syscall.EEXIST, "ipv4: Address already assigned")
	assertErr(t, add(append(ifa(uapi.AF_INET, 24, 99), local(10, 0, 0, 9)...)), syscall.ENODEV, "ipv4: Device not found")
	_, err = serve(t, h, rt.RTMDelAddr, netlink.Acknowledge, append(ifa(uapi.AF_INET, 24, 3), local(10, 0, 0, 0x77)...), false)
	assertErr(t, err, syscall.EADDRNOTAVAIL, "ipv4: Address not found")
	v6b := netip.MustParseAddr("2001:db8::2").AsSlice()
	assertErr(t, add(append(ifa(uapi.AF_INET6, 64, 99), attrBytes(t, func(ae *netlink.AttributeEncoder) { ae.Bytes(uapi.IFA_ADDRESS, v6b) })...)),
		syscall.ENODEV, "ipv6: Unable to find the interface")
	// A strict dump's header checks and ifindex filter.
	_, err = serve(t, h, rt.RTMGetAddr, netlink.Dump, ifa(uapi.AF_INET, 8, 0), true)
	assertErr(t, err, syscall.EINVAL, "ipv4: Invalid values in header for address dump request")
	msgs, err = serve(t, h, rt.RTMGetAddr, netlink.Dump, ifa(uapi.AF_INET, 0, 3), true)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	assert.Equal(t, netlink.HeaderFlags(uapi.NLM_F_DUMP_FILTERED), msgs[0].Header.Flags)
	// Deleting the IPv4 address, and its notification's content.
	_, err = serve(t, h, rt.RTMDelAddr, netlink.Acknowledge, append(ifa(uapi.AF_INET, 24, 3), local(10, 0, 0, 1)...), false)
	require.NoError(t, err)
	msgs, err = serve(t, h, rt.RTMGetAddr, netlink.Dump, ifa(uapi.AF_INET, 0, 3), true)
	require.NoError(t, err)
	assert.Empty(t, msgs)
}
