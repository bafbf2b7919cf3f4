package nlwire

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"
)

// The error acks of validate_nla's policy errors carry
// NLMSGERR_ATTR_POLICY, nested, after the message and the offset.
// Recorded from Linux 6.18 (a NETLINK_ROUTE socket with NETLINK_EXT_ACK in
// a new namespace): RTM_NEWNEXTHOP requests, which nlmsg_parse validates
// strictly, each failing one entry of rtm_nh_policy_new.
func TestPolicyInErrorAck(t *testing.T) {
	cases := []struct {
		name, req, want string
	}{{
		name: "a flag with a payload",
		req:  "20000000680005040100000000000000 0200000000000000 0800040001000000",
		want: "70000000 0200 0002 01000000 PPPPPPPP deffffff 20000000680005040100000000000000020000000000000008000400010000002700010041747472696275746520666169" +
			"6c656420706f6c6963792076616c69646174696f6e000008000200180000000c0004800800010001000000",
	}, {
		name: "a nested attribute without NLA_F_NESTED",
		req:  "2c000000680005040200000000000000 0200000000000000 0800010005000000 0c000c000600010008000000",
		want: "70000000 0200 0002 02000000 PPPPPPPP eaffffff 2c000000680005040200000000000000020000000000000008000100050000000c000c0006000100080000001c00" +
			"01004e4c415f465f4e4553544544206973206d697373696e670008000200200000000c000480080001000d000000",
	}, {
		name: "a u32 of 8 bytes",
		req:  "24000000680005040300000000000000 0200000000000000 0c0001000500000000000000",
		want: "84000000 0200 0002 03000000 PPPPPPPP eaffffff 2400000068000504030000000000000002000000000000000c00010005000000000000001d000100696e76616c69" +
			"6420617474726962757465206c656e677468000000000800020018000000240004800c00040000000000000000000c000500ffffffff000000000800010004000000",
	}, {
		name: "a u32 flagged nested",
		req:  "20000000680005040400000000000000 0200000000000000 0800058005000000",
		want: "80000000 0200 0002 04000000 PPPPPPPP eaffffff 20000000680005040400000000000000020000000000000008000580050000001e0001004e4c415f465f4e45535445" +
			"44206e6f742065787065637465640000000800020018000000240004800c00040000000000000000000c000500ffffffff000000000800010004000000",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSocket(t)
			require.NoError(t, s.SetOption(netlink.ExtendedAcknowledge, true))
			b, err := hex.DecodeString(strings.ReplaceAll(c.req, " ", ""))
			require.NoError(t, err)
			require.NoError(t, s.sendRaw(b))
			require.Equal(t, []string{kernelHex(s, c.want)}, queued(t, s))
		})
	}
}

// Without extended acks the error carries no TLVs at all.
func TestPolicyOnlyWithExtack(t *testing.T) {
	s := newTestSocket(t)
	b, err := hex.DecodeString("200000006800050401000000000000000200000000000000" + "0800040001000000")
	require.NoError(t, err)
	require.NoError(t, s.sendRaw(b))
	require.Equal(t, []string{kernelHex(s, "34000000 0200 0000 01000000 PPPPPPPP deffffff "+hex.EncodeToString(b))}, queued(t, s))
}

// Each policy type is described as netlink_policy_dump_write_attr
// describes it; NLA_UNSPEC and NLA_REJECT are not described.
func TestAppendPolicyAttr(t *testing.T) {
	for _, c := range []struct {
		pt   attrPolicy
		want string
	}{
		{attrPolicy{nlaString, 15}, "14000480 08000700 0f000000 08000100 0b000000"},
		{attrPolicy{nlaString, 0}, "0c000480 08000100 0b000000"},
		{attrPolicy{nlaNulString, 16}, "14000480 08000700 10000000 08000100 0c000000"},
		{attrPolicy{nlaBinary, 6}, "14000480 08000700 06000000 08000100 0a000000"},
		{attrPolicy{nlaFlag, 0}, "0c000480 08000100 01000000"},
		{attrPolicy{nlaNested, 0}, "0c000480 08000100 0d000000"},
		{attrPolicy{nlaU8, 0}, "24000480 0c000400 0000000000000000 0c000500 ff00000000000000 08000100 02000000"},
		{attrPolicy{nlaU16, 0}, "24000480 0c000400 0000000000000000 0c000500 ffff000000000000 08000100 03000000"},
		{attrPolicy{nlaU64, 0}, "24000480 0c000400 0000000000000000 0c000500 ffffffffffffffff 08000100 05000000"},
		{attrPolicy{nlaS32, 0}, "24000480 0c000200 00000080ffffffff 0c000300 ffffff7f00000000 08000100 08000000"},
		{attrPolicy{nlaUnspec, 8}, ""},
		{attrPolicy{nlaReject, 0}, ""},
	} {
		require.Equal(t, strings.ReplaceAll(c.want, " ", ""), hex.EncodeToString(appendPolicyAttr(nil, 4, c.pt)), "%+v", c.pt)
	}
}
