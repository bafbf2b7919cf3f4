package rtnl_test

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// An RTM_NEWRULE and an RTM_DELRULE announce the rule with the request's
// port id and sequence number (its Origin), as fib_nl_newrule's and
// fib_nl_delrule's notify_rule_change copy them from the request; a
// request without an origin (a Go program's) announces none.
func TestRuleRequestNotificationOrigin(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	var got []rtnl.Notification
	cancel := k.InitNet().Subscribe(func(m rtnl.Notification) { got = append(got, m) })
	defer cancel()
	h := k.InitNet().Handle(k.World().NewTask("nl"))
	o := rtnl.Origin{PortID: 77, Seq: 9}
	rule := fibrules.Rule{Action: fibrules.ActToTable, Pref: 100, Table: 100, Attrs: fibrules.AttrPriority}
	require.NoError(t, h.NewRule(rtnl.RuleRequest{Origin: o, Flags: rt.NLMExcl, Family: rt.FamilyInet, Rule: rule}))
	require.NoError(t, h.DelRule(rtnl.RuleRequest{Origin: rtnl.Origin{PortID: 77, Seq: 10}, Family: rt.FamilyInet, Rule: rule}))
	require.NoError(t, h.RuleAdd(rt.FamilyInet, rule))
	require.Len(t, got, 3)
	require.Equal(t, rt.RTMNewRule, got[0].Type)
	require.Equal(t, o, got[0].Origin)
	require.Equal(t, uint32(100), got[0].Rule.Pref)
	require.Equal(t, rt.RTMDelRule, got[1].Type)
	require.Equal(t, uint32(10), got[1].Origin.Seq)
	require.Equal(t, rtnl.Origin{}, got[2].Origin)
}

// TestDumpRulesRequest: fib_valid_dumprule_req's strict checks, then the
// family's (lookup_rules_ops), before anything is walked.
func TestDumpRulesRequest(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	h := k.InitNet().Handle(k.World().NewTask("nl"))
	cases := []struct {
		name  string
		req   rtnl.RuleDumpRequest
		errno syscall.Errno
		msg   string
	}{
		{"short header", rtnl.RuleDumpRequest{Strict: true, ShortHeader: true}, syscall.EINVAL, "Invalid header for fib rule dump request"},
		{"header set", rtnl.RuleDumpRequest{Strict: true, HeaderSet: true, Attrs: true}, syscall.EINVAL, "Invalid values in header for fib rule dump request"},
		{"attributes", rtnl.RuleDumpRequest{Strict: true, Attrs: true}, syscall.EINVAL, "Invalid data after header in fib rule dump request"},
		{"a family without rules", rtnl.RuleDumpRequest{Family: 7}, syscall.EAFNOSUPPORT, ""},
		{"multicast routing rules", rtnl.RuleDumpRequest{Family: 128}, syscall.EOPNOTSUPP, "Multicast routing rules are not modelled"},
	}
	for _, c := range cases {
		_, err := h.DumpRules(c.req)
		requireErr(t, err, c.errno, c.msg)
	}
	// Without strict checking the header and attributes are not looked at.
	all, err := rtnl.ReadAll[fibrules.Rule](h.DumpRules(rtnl.RuleDumpRequest{HeaderSet: true, Attrs: true}))
	require.NoError(t, err)
	require.Len(t, all, 5, "IPv4's three rules, then IPv6's two")
	require.Equal(t, rt.FamilyInet, all[0].Family)
	require.Equal(t, rt.FamilyInet6, all[4].Family)
	requireErr(t, h.RuleAdd(7, fibrules.Rule{}), syscall.EAFNOSUPPORT, "Rule family not supported")
}
