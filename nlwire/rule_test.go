package nlwire

import (
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
)

// Rule requests against what Linux 6.18 answered to the same ones.
func TestRulesAsTheKernelAnswers(t *testing.T) {
	skip := map[string]bool{
		"dump empty nonstrict": true, // no rtgenmsg: the socket's business
		"getrule no dump":      true, // no doit: the socket's EOPNOTSUPP
	}
	differ := map[string]kernelDifference{
		"dump fam 128": {syscall.EOPNOTSUPP, "Multicast routing rules are not modelled"},
		"family 128":   {syscall.EOPNOTSUPP, "Multicast routing rules are not modelled"},
		"dscp ok v4":   {syscall.EOPNOTSUPP, "FRA_DSCP is not modelled"},
		"flow (realm)": {syscall.EOPNOTSUPP, "FRA_FLOW (realms) is not modelled"},
	}
	// Multicast routing rules (RTNL_FAMILY_IPMR, RTNL_FAMILY_IP6MR) are
	// not modelled, nor are the DSCP and realm rules netsim refused.
	filter := func(m netlink.Message) bool {
		if m.Data[0] == 128 || m.Data[0] == 129 { // RTNL_FAMILY_IPMR, RTNL_FAMILY_IP6MR
			return false
		}
		ad, err := netlink.NewAttributeDecoder(m.Data[frhLen:])
		require.NoError(t, err)
		for ad.Next() {
			if ad.Type() == uapi.FRA_DSCP || ad.Type() == uapi.FRA_FLOW {
				return false
			}
		}
		return true
	}
	replayKernelReplies(t, "rules1.txt", skip, differ, filter, nil)
	replayKernelReplies(t, "rules2.txt", skip, differ, filter, nil)
	// Empty FRA_IIFNAME and FRA_OIFNAME: given, shown by no dump, equal
	// to no name for NLM_F_EXCL and as a delete's selector.
	replayKernelReplies(t, "rules3.txt", skip, differ, filter, nil)
}
