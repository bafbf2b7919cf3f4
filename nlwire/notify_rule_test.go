package nlwire

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// The rule and nexthop notifications carry what a dump shows of the
// object, to the family's rule group or the nexthop group; the bytes are
// those Linux 6.18 multicast for the same changes.
func TestRuleAndNexthopNotifications(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	h := k.InitNet().Handle(k.World().NewTask("nl"))
	require.NoError(t, h.RuleAdd(rt.FamilyInet, fibrules.Rule{
		Action: fibrules.ActGoto, Pref: 200, Goto: 300, Attrs: fibrules.AttrPriority | fibrules.AttrGoto,
	}))
	require.NoError(t, h.RuleAdd(rt.FamilyInet6, fibrules.Rule{
		Action: fibrules.ActUnreachable, Pref: 901, Attrs: fibrules.AttrPriority,
	}))
	find := func(fam rt.Family, pref uint32) *fibrules.Rule {
		rules, err := h.RuleList(fam)
		require.NoError(t, err)
		for i := range rules {
			if rules[i].Pref == pref {
				return &rules[i]
			}
		}
		t.Fatalf("no rule %d", pref)
		return nil
	}
	for _, c := range []struct {
		n     rtnl.Notification
		group uint32
		want  string
	}{
		{rtnl.Notification{Type: rt.RTMNewRule, Family: rt.FamilyInet, Rule: find(rt.FamilyInet, 200)}, uapi.RTNLGRP_IPV4_RULE,
			"02000000000000020400000008000f000000000008000e00ffffffff050015000000000008000600c8000000080004002c010000"},
		{rtnl.Notification{Type: rt.RTMDelRule, Family: rt.FamilyInet6, Rule: find(rt.FamilyInet6, 901)}, uapi.RTNLGRP_IPV6_RULE,
			"0a000000000000070000000008000f000000000008000e00ffffffff05001500000000000800060085030000"},
	} {
		body, group, err := notifiers[c.n.Type](c.n)
		require.NoError(t, err)
		require.Equal(t, c.group, group)
		require.Equal(t, c.want, hex.EncodeToString(body))
	}

	ip := iproute.New(k, k.World().NewTask("ip"))
	for _, cmd := range []string{
		"link add veth0 type veth peer name veth1", "link set veth0 up", "link set veth1 up",
		"addr add 10.0.0.1/24 dev veth0", "nexthop add id 2 dev veth0 proto static",
		"nexthop add id 11 group 2 type resilient buckets 4",
	} {
		require.NoError(t, ip.Run(strings.Fields(cmd)...), cmd)
	}
	for _, c := range []struct {
		typ  rt.MsgType
		id   nexthop.ID
		want string
	}{
		{rt.RTMNewNexthop, 2, "02fe04000000000008000100020000000800050003000000"},
		{rt.RTMDelNexthop, 11, "0000000000000000080001000b00000006000300010000000c0002000200000000000000" +
			"28000c80060001000400000008000200e02e000008000300000000000c000400000000000000000008000e0000000080"},
	} {
		ni, err := h.NexthopGet(c.id)
		require.NoError(t, err)
		body, group, err := notifiers[c.typ](rtnl.Notification{Type: c.typ, Nexthop: &ni})
		require.NoError(t, err)
		require.Equal(t, uint32(uapi.RTNLGRP_NEXTHOP), group)
		require.Equal(t, c.want, hex.EncodeToString(body))
	}
	body, _, err := notifiers[rt.RTMNewNexthop](rtnl.Notification{Type: rt.RTMNewNexthop})
	require.NoError(t, err)
	require.Nil(t, body, "a notification without its nexthop sends nothing")
}
