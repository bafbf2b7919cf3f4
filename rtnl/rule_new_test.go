package rtnl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// An RTM_NEWRULE served through RuleNew announces the rule with the
// request's port id and sequence number, as fib_nl_newrule's
// notify_rule_change copies them from the request.
func TestRuleNewNotificationOrigin(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	var got []rtnl.Notification
	cancel := k.InitNet().Subscribe(func(m rtnl.Notification) { got = append(got, m) })
	defer cancel()
	h := k.InitNet().Handle(k.World().NewTask("nl"))
	o := rtnl.Origin{PortID: 77, Seq: 9}
	h.SetOrigin(o)
	require.NoError(t, h.RuleNew(rtnl.FamilyV4, fibrules.Rule{
		Action: fibrules.ActToTable, Pref: 100, Table: 100, Attrs: fibrules.AttrPriority,
	}, true))
	require.Len(t, got, 1)
	require.Equal(t, rt.RTMNewRule, got[0].Type)
	require.Equal(t, o, got[0].Origin)
	require.Equal(t, uint32(100), got[0].Rule.Pref)
}
