package nlwire

import (
	"net/netip"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
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

// TestDelAddr4MatchesKernel deletes with the selections of
// inet_rtm_deladdr what Linux 6.18 deleted for the same requests on a
// veth with 10.0.0.1/24, 10.0.0.2/24 (secondary), 10.1.0.1/16 labelled
// v0:1 and 10.2.0.1 peer 10.9.9.9/32; want is what the device kept, in
// `ip -4 addr show` order.
func TestDelAddr4MatchesKernel(t *testing.T) {
	label := func(l string) []byte {
		return attrBytes(t, func(ae *netlink.AttributeEncoder) { ae.String(uapi.IFA_LABEL, l) })
	}
	ip4 := func(typ uint16, s string) []byte {
		return attrBytes(t, func(ae *netlink.AttributeEncoder) { ae.Bytes(typ, netip.MustParseAddr(s).AsSlice()) })
	}
	all := []string{"10.0.0.1/24", "10.1.0.1/16", "10.2.0.1/32", "10.0.0.2/24"}
	for _, c := range []struct {
		name  string
		plen  uint8
		attrs [][]byte
		index uint32
		errno syscall.Errno
		msg   string
		want  []string
	}{
		{"nothing, prefixlen 0", 0, nil, 3, 0, "", []string{"10.1.0.1/16", "10.2.0.1/32"}},
		{"nothing, prefixlen 24", 24, nil, 3, 0, "", []string{"10.1.0.1/16", "10.2.0.1/32"}},
		{"label v0:1", 0, [][]byte{label("v0:1")}, 3, 0, "", []string{"10.0.0.1/24", "10.2.0.1/32", "10.0.0.2/24"}},
		{"IFA_ADDRESS 10.0.0.0/24", 24, [][]byte{ip4(uapi.IFA_ADDRESS, "10.0.0.0")}, 3, 0, "", []string{"10.1.0.1/16", "10.2.0.1/32"}},
		{"IFA_ADDRESS 10.0.0.77/24", 24, [][]byte{ip4(uapi.IFA_ADDRESS, "10.0.0.77")}, 3, 0, "", []string{"10.1.0.1/16", "10.2.0.1/32"}},
		{"IFA_ADDRESS of a peer", 32, [][]byte{ip4(uapi.IFA_ADDRESS, "10.9.9.9")}, 3, 0, "", []string{"10.0.0.1/24", "10.1.0.1/16", "10.0.0.2/24"}},
		{"IFA_ADDRESS with another prefix length", 16, [][]byte{ip4(uapi.IFA_ADDRESS, "10.0.0.0")}, 3, syscall.EADDRNOTAVAIL, "ipv4: Address not found", all},
		{"an unknown label", 0, [][]byte{label("nope")}, 3, syscall.EADDRNOTAVAIL, "ipv4: Address not found", all},
		{"IFA_LOCAL of a secondary, prefixlen 0", 0, [][]byte{ip4(uapi.IFA_LOCAL, "10.0.0.2")}, 3, 0, "", []string{"10.0.0.1/24", "10.1.0.1/16", "10.2.0.1/32"}},
		{"IFA_LOCAL and label", 0, [][]byte{ip4(uapi.IFA_LOCAL, "10.0.0.2"), label("v0")}, 3, 0, "", []string{"10.0.0.1/24", "10.1.0.1/16", "10.2.0.1/32"}},
		{"IFA_ADDRESS and the wrong label", 16, [][]byte{ip4(uapi.IFA_ADDRESS, "10.1.0.0"), label("v0")}, 3, syscall.EADDRNOTAVAIL, "ipv4: Address not found", all},
		{"an unknown ifindex", 0, nil, 99, syscall.ENODEV, "ipv4: Device not found", all},
		{"ifindex 0", 0, nil, 0, syscall.ENODEV, "ipv4: Device not found", all},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := testHandle(t)
			setupLinks(t, h)
			require.NoError(t, h.AddrAddWith("v0", netdev.Addr{Prefix: netip.MustParsePrefix("10.0.0.1/24")}))
			require.NoError(t, h.AddrAddWith("v0", netdev.Addr{Prefix: netip.MustParsePrefix("10.0.0.2/24")}))
			require.NoError(t, h.AddrAddWith("v0", netdev.Addr{Prefix: netip.MustParsePrefix("10.1.0.1/16"), Label: "v0:1"}))
			require.NoError(t, h.AddrAddWith("v0", netdev.Addr{Prefix: netip.MustParsePrefix("10.2.0.1/32"), Peer: netip.MustParseAddr("10.9.9.9")}))
			body := ifa(uapi.AF_INET, c.plen, c.index)
			for _, a := range c.attrs {
				body = append(body, a...)
			}
			_, err := serve(t, h, rt.RTMDelAddr, netlink.Acknowledge, body, false)
			if c.errno == 0 {
				require.NoError(t, err)
			} else {
				assertErr(t, err, c.errno, c.msg)
			}
			as, err := h.AddrList("v0", rt.FamilyInet)
			require.NoError(t, err)
			var got []string
			for _, a := range as {
				got = append(got, a.Prefix.String())
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// TestGetAddr6MatchesKernel asks for one IPv6 address as Linux 6.18 was
// asked, on v0 (ifindex 3) with 2001:db8::1/64 nodad and 2001:db8::5 peer
// 2001:db8:1::1/128; the kernel's answers are the expectations.
func TestGetAddr6MatchesKernel(t *testing.T) {
	h := testHandle(t)
	setupLinks(t, h)
	require.NoError(t, h.AddrAddWith("v0", netdev.Addr{Prefix: netip.MustParsePrefix("2001:db8::1/64"), Flags: netdev.AddrNoDAD}))
	require.NoError(t, h.AddrAddWith("v0", netdev.Addr{Prefix: netip.MustParsePrefix("2001:db8::5/128"), Peer: netip.MustParseAddr("2001:db8:1::1"), Flags: netdev.AddrNoDAD}))
	ip6 := func(typ uint16, s string) []byte {
		return attrBytes(t, func(ae *netlink.AttributeEncoder) { ae.Bytes(typ, netip.MustParseAddr(s).AsSlice()) })
	}
	get := func(strict bool, hdr []byte, attrs ...[]byte) ([]netlink.Message, error) {
		for _, a := range attrs {
			hdr = append(hdr, a...)
		}
		return serve(t, h, rt.RTMGetAddr, 0, hdr, strict)
	}
	found := func(msgs []netlink.Message, err error) {
		t.Helper()
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		assert.Equal(t, netlink.HeaderType(rt.RTMNewAddr), msgs[0].Header.Type)
		assert.Equal(t, []byte{uapi.AF_INET6, 64, 0x82, 0, 3, 0, 0, 0}, msgs[0].Data[:ifaddrmsgLen])
		assert.Equal(t, []uint16{uapi.IFA_ADDRESS, uapi.IFA_CACHEINFO, uapi.IFA_FLAGS}, attrTypes(t, msgs[0].Data[ifaddrmsgLen:]))
		var am rtnetlink.AddressMessage
		require.NoError(t, am.UnmarshalBinary(msgs[0].Data))
		assert.Equal(t, "2001:db8::1", am.Attributes.Address.String())
	}
	for _, strict := range []bool{false, true} {
		found(get(strict, ifa(uapi.AF_INET6, 0, 3), ip6(uapi.IFA_ADDRESS, "2001:db8::1")))
		found(get(strict, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_LOCAL, "2001:db8::1")))
		// An ifindex that names no device looks on every device.
		found(get(strict, ifa(uapi.AF_INET6, 0, 99), ip6(uapi.IFA_ADDRESS, "2001:db8::1")))
		// IFA_LOCAL wins over a different IFA_ADDRESS.
		found(get(strict, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_ADDRESS, "2001:db8::99"), ip6(uapi.IFA_LOCAL, "2001:db8::1")))
		_, err := get(strict, ifa(uapi.AF_INET6, 0, 0))
		assertErr(t, err, syscall.EINVAL, "")
		_, err = get(strict, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_ADDRESS, "2001:db8::99"))
		assertErr(t, err, syscall.EADDRNOTAVAIL, "")
		_, err = get(strict, ifa(uapi.AF_INET6, 0, 1), ip6(uapi.IFA_ADDRESS, "2001:db8::1"))
		assertErr(t, err, syscall.EADDRNOTAVAIL, "")
		// A peer's address is no local address.
		_, err = get(strict, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_ADDRESS, "2001:db8:1::1"))
		assertErr(t, err, syscall.EADDRNOTAVAIL, "")
		_, err = get(strict, []byte{uapi.AF_INET6, 0, 0, 0})
		assertErr(t, err, syscall.EINVAL, "ipv6: Invalid header for get address request")
		_, err = get(strict, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_ADDRESS, "10.0.0.1"))
		assertErr(t, err, syscall.ERANGE, "Attribute failed policy validation")
		assert.Equal(t, 24, errOffset(err))
	}
	// Without strict checking the header's other fields and any attribute
	// are ignored.
	label := attrBytes(t, func(ae *netlink.AttributeEncoder) { ae.String(uapi.IFA_LABEL, "x") })
	flags := attrBytes(t, func(ae *netlink.AttributeEncoder) { ae.Uint32(uapi.IFA_FLAGS, 0) })
	unknown := attrBytes(t, func(ae *netlink.AttributeEncoder) { ae.Uint32(99, 0) })
	found(get(false, ifa(uapi.AF_INET6, 64, 0), ip6(uapi.IFA_ADDRESS, "2001:db8::1")))
	found(get(false, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_ADDRESS, "2001:db8::1"), label))
	found(get(false, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_ADDRESS, "2001:db8::1"), unknown))
	_, err := get(true, ifa(uapi.AF_INET6, 64, 0), ip6(uapi.IFA_ADDRESS, "2001:db8::1"))
	assertErr(t, err, syscall.EINVAL, "ipv6: Invalid values in header for get address request")
	_, err = get(true, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_ADDRESS, "2001:db8::1"), label)
	assertErr(t, err, syscall.EINVAL, "ipv6: Unsupported attribute in get address request")
	_, err = get(true, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_ADDRESS, "2001:db8::1"), flags)
	assertErr(t, err, syscall.EINVAL, "ipv6: Unsupported attribute in get address request")
	_, err = get(true, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_ADDRESS, "2001:db8::1"), unknown)
	assertErr(t, err, syscall.EINVAL, "Unknown attribute type")
	assert.Equal(t, 44, errOffset(err))
	_, err = get(true, ifa(uapi.AF_INET6, 0, 0), ip6(uapi.IFA_ADDRESS, "2001:db8::1"), []byte{1, 2})
	assertErr(t, err, syscall.EINVAL, "bytes leftover after parsing attributes")
	// IPv4 has no RTM_GETADDR doit.
	_, ok := handlers[handlerKey{uapi.AF_INET, rt.RTMGetAddr}]
	assert.True(t, ok)
	assert.Nil(t, handlers[handlerKey{uapi.AF_INET, rt.RTMGetAddr}].do)
}

// TestAddrReplaceMovesTstampOnly checks IFA_CACHEINFO's two stamps as
// Linux 6.18 keeps them: an address's cstamp is when it was made and its
// tstamp when its lifetimes were last set, so that `ip addr replace ...
// valid_lft 100 preferred_lft 50` 1.5 s later moved tstamp by 1.5 s (151
// hundredths on the kernel's jiffies) and left cstamp, for IPv4 and IPv6
// alike (set_ifa_lifetime, inet6_addr_modify).
func TestAddrReplaceMovesTstampOnly(t *testing.T) {
	h := testHandle(t)
	setupLinks(t, h) // v0 is ifindex 3, up
	v6 := netip.MustParseAddr("2001:db8::1").AsSlice()
	bodies := [][]byte{
		append(ifa(uapi.AF_INET, 24, 3), attrBytes(t, func(ae *netlink.AttributeEncoder) {
			ae.Bytes(uapi.IFA_LOCAL, []byte{10, 0, 0, 1})
		})...),
		append(ifa(uapi.AF_INET6, 64, 3), attrBytes(t, func(ae *netlink.AttributeEncoder) {
			ae.Bytes(uapi.IFA_LOCAL, v6)
			ae.Uint32(uapi.IFA_FLAGS, uapi.IFA_F_NODAD)
		})...),
	}
	withLft := func(body []byte) []byte {
		ci := make([]byte, ifaCacheinfoLen)
		ci[0], ci[4] = 50, 100 // ifa_prefered, ifa_valid
		return append(slices.Clone(body), attrBytes(t, func(ae *netlink.AttributeEncoder) { ae.Bytes(uapi.IFA_CACHEINFO, ci) })...)
	}
	stamps := func() map[string]rtnetlink.CacheInfo {
		msgs, err := serve(t, h, rt.RTMGetAddr, netlink.Dump, ifa(0, 0, 3), true)
		require.NoError(t, err)
		got := map[string]rtnetlink.CacheInfo{}
		for _, m := range msgs {
			var am rtnetlink.AddressMessage
			require.NoError(t, am.UnmarshalBinary(m.Data))
			got[am.Attributes.Address.String()] = am.Attributes.CacheInfo
		}
		return got
	}
	h.Task().Sleep(3 * time.Second)
	for _, b := range bodies {
		_, err := serve(t, h, rt.RTMNewAddr, createExcl|netlink.Acknowledge, b, false)
		require.NoError(t, err)
	}
	before := stamps()
	h.Task().Sleep(1500 * time.Millisecond)
	for _, b := range bodies {
		_, err := serve(t, h, rt.RTMNewAddr, netlink.Create|netlink.Replace|netlink.Acknowledge, withLft(b), false)
		require.NoError(t, err)
	}
	after := stamps()
	for _, a := range []string{"10.0.0.1", "2001:db8::1"} {
		b, c := before[a], after[a]
		require.NotZero(t, b.Created, a)
		assert.Equal(t, b.Created, b.Updated, "%s: a new address's stamps are equal", a)
		assert.Equal(t, b.Created, c.Created, "%s: a replace leaves cstamp", a)
		assert.Equal(t, b.Updated+150, c.Updated, "%s: a replace moves tstamp", a)
		assert.Equal(t, uint32(50), c.Preferred, a)
		assert.Equal(t, uint32(100), c.Valid, a)
	}
}
