package iproute

import (
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reachable reports the first names of table's keywords that an earlier
// keyword shadows: a word spelled in full must reach its own keyword.
func reachable[R any](table []keyword[R]) []string {
	var shadowed []string
	for i := range table {
		for _, n := range table[i].names {
			full := n
			if full[len(full)-1] == '*' {
				full = full[:len(full)-1]
			}
			if k := lookup(table, full); k != &table[i] {
				shadowed = append(shadowed, full)
			}
		}
	}
	return shadowed
}

// TestLinkAddrTablesReachable: every keyword of the link and address
// tables is reached by its full name (iproute2's chains compare in this
// order, so a shadowed keyword would be dead code there too).
func TestLinkAddrTablesReachable(t *testing.T) {
	assert.Empty(t, reachable(linkKeywords), "iplink_parse")
	assert.Empty(t, reachable(addrModifyKeywords), "ipaddr_modify")
	assert.Empty(t, reachable(addrFilterKeywords), "ipaddr_list_flush_or_save")
	assert.Empty(t, reachable(macvlanKeywords), "macvlan_parse_opt")
	assert.Empty(t, reachable(vlanKeywords), "vlan_parse_opt")
	assert.Empty(t, reachable(bondKeywords), "bond_parse_opt")
	assert.Empty(t, reachable(vrfKeywords), "vrf_parse_opt")
}

// TestLinkKeywordOrder: iplink_parse 6.1's keywords, in its order of
// comparison.
func TestLinkKeywordOrder(t *testing.T) {
	require.Equal(t, []string{"up", "down", "name", "index", "link", "address", "broadcast", "txqueuelen", "mtu",
		"xdp", "netns", "multicast", "allmulticast", "promisc", "trailers", "arp", "carrier", "vf", "master", "vrf",
		"nomaster", "dynamic", "type", "alias", "group", "mode", "state", "numtxqueues", "numrxqueues",
		"addrgenmode", "link-netns", "link-netnsid", "protodown", "protodown_reason", "gso_max_size",
		"gso_max_segs", "gro_max_size", "parentdev"}, keywordNames(linkKeywords))
	require.Equal(t, []string{"peer", "broadcast", "anycast", "scope", "dev", "label", "metric", "valid_lft",
		"preferred_lft", "secondary", "temporary", "nodad", "optimistic", "dadfailed", "home", "deprecated",
		"tentative", "permanent", "mngtmpaddr", "noprefixroute", "autojoin", "stable-privacy"},
		keywordNames(addrModifyKeywords))
}

// TestLinkAddrAbbreviations: which keyword an abbreviation names, as ip
// 6.1 compares them (matches() for prefixes, strcmp() for whole words).
func TestLinkAddrAbbreviations(t *testing.T) {
	name := func(k *keyword[*linkReq]) string {
		if k == nil {
			return ""
		}
		return k.names[0]
	}
	for word, want := range map[string]string{
		"a": "address*", "al": "alias*", "b": "broadcast*", "brd": "broadcast*", "m": "master*",
		"mtu": "mtu", "mo": "", "mode": "mode", "t": "txqueuelen*", "ty": "type*", "d": "dynamic*", "gr": "", "group": "group",
		"qlen": "txqueuelen*", "txq": "txqueuelen*", "txql": "txqueuelen*", "l": "link*", "link-netns": "link-netns*",
		"n": "nomaster*", "na": "", "nom": "nomaster*", "xdpdrv": "xdp", "dev": "",
	} {
		assert.Equal(t, want, name(lookup(linkKeywords, word)), "ip link %q", word)
	}
	aname := func(k *keyword[*addrReq]) string {
		if k == nil {
			return ""
		}
		return k.names[0]
	}
	for word, want := range map[string]string{
		"b": "broadcast*", "pr": "metric*", "pre": "metric*", "prefe": "metric*", "preferred": "preferred_lft*",
		"v": "valid_lft*", "remote": "peer", "me": "metric*", "local": "", "proto": "", "home": "home",
	} {
		assert.Equal(t, want, aname(lookup(addrModifyKeywords, word)), "ip addr add %q", word)
	}
	for word, found := range map[string]bool{"to": true, "t": false, "-dynamic": true, "primary": true,
		"-tentative": true, "gr": false, "group": true, "up": true} {
		assert.Equal(t, found, lookup(addrFilterKeywords, word) != nil, "ip addr show %q", word)
	}
}

// TestLinkReqFlags: flag keywords set ifi_flags under the ifi_change mask,
// arp inverted (IFF_NOARP), the last word winning.
func TestLinkReqFlags(t *testing.T) {
	r := &linkReq{}
	require.NoError(t, walk(&args{w: []string{"promisc", "on", "arp", "off", "multicast", "off", "up", "promisc", "off"}},
		linkKeywords, r, nil))
	assert.Equal(t, netdev.FlagPromisc|netdev.FlagNoARP|netdev.FlagMulticast|netdev.FlagUp, r.flMsk)
	assert.Equal(t, netdev.FlagNoARP|netdev.FlagUp, r.flags)
	assert.True(t, r.up())

	err := walk(&args{w: []string{"allmulticast", "ON"}}, linkKeywords, &linkReq{}, nil)
	assert.Equal(t, "Error: argument of \"allmulticast\" must be \"on\" or \"off\", not \"ON\"\n", Message(err))
	assert.Equal(t, exitFailure, status(err))

	err = walk(&args{w: []string{"carrier", "x"}}, linkKeywords, &linkReq{}, nil)
	assert.Equal(t, 22, status(err), "parse_on_off fails with -EINVAL")
}

// TestAtoi: index is read with atoi.
func TestAtoi(t *testing.T) {
	for in, want := range map[string]int32{"5": 5, "12abc": 12, " +7": 7, "-3": -3, "x": 0, "99999999999999999999": -1, "4294967297": 1} {
		assert.Equal(t, want, atoi(in), in)
	}
}
