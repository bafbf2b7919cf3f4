package uapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
)

// TestSameNumbersAsRT ties the wire's constants (from the kernel's uapi
// headers) to the vocabulary the model uses (rt): every number both name
// is the same number, so a value crosses the wire unchanged.
func TestSameNumbersAsRT(t *testing.T) {
	for _, c := range []struct {
		name     string
		wire, rt uint64
	}{
		{"AF_UNSPEC", uapi.AF_UNSPEC, uint64(rt.FamilyUnspec)},
		{"AF_INET", uapi.AF_INET, uint64(rt.FamilyInet)},
		{"AF_INET6", uapi.AF_INET6, uint64(rt.FamilyInet6)},
		{"AF_BRIDGE", uapi.AF_BRIDGE, uint64(rt.FamilyBridge)},

		{"NLM_F_REPLACE", uapi.NLM_F_REPLACE, uint64(rt.NLMReplace)},
		{"NLM_F_EXCL", uapi.NLM_F_EXCL, uint64(rt.NLMExcl)},
		{"NLM_F_CREATE", uapi.NLM_F_CREATE, uint64(rt.NLMCreate)},
		{"NLM_F_APPEND", uapi.NLM_F_APPEND, uint64(rt.NLMAppend)},

		{"RTM_NEWLINK", uapi.RTM_NEWLINK, uint64(rt.RTMNewLink)},
		{"RTM_DELLINK", uapi.RTM_DELLINK, uint64(rt.RTMDelLink)},
		{"RTM_GETLINK", uapi.RTM_GETLINK, uint64(rt.RTMGetLink)},
		{"RTM_SETLINK", uapi.RTM_SETLINK, uint64(rt.RTMSetLink)},
		{"RTM_NEWADDR", uapi.RTM_NEWADDR, uint64(rt.RTMNewAddr)},
		{"RTM_DELADDR", uapi.RTM_DELADDR, uint64(rt.RTMDelAddr)},
		{"RTM_GETADDR", uapi.RTM_GETADDR, uint64(rt.RTMGetAddr)},
		{"RTM_NEWROUTE", uapi.RTM_NEWROUTE, uint64(rt.RTMNewRoute)},
		{"RTM_DELROUTE", uapi.RTM_DELROUTE, uint64(rt.RTMDelRoute)},
		{"RTM_GETROUTE", uapi.RTM_GETROUTE, uint64(rt.RTMGetRoute)},
		{"RTM_NEWNEIGH", uapi.RTM_NEWNEIGH, uint64(rt.RTMNewNeigh)},
		{"RTM_DELNEIGH", uapi.RTM_DELNEIGH, uint64(rt.RTMDelNeigh)},
		{"RTM_GETNEIGH", uapi.RTM_GETNEIGH, uint64(rt.RTMGetNeigh)},
		{"RTM_NEWRULE", uapi.RTM_NEWRULE, uint64(rt.RTMNewRule)},
		{"RTM_DELRULE", uapi.RTM_DELRULE, uint64(rt.RTMDelRule)},
		{"RTM_GETRULE", uapi.RTM_GETRULE, uint64(rt.RTMGetRule)},
		{"RTM_NEWNEXTHOP", uapi.RTM_NEWNEXTHOP, uint64(rt.RTMNewNexthop)},
		{"RTM_DELNEXTHOP", uapi.RTM_DELNEXTHOP, uint64(rt.RTMDelNexthop)},
		{"RTM_GETNEXTHOP", uapi.RTM_GETNEXTHOP, uint64(rt.RTMGetNexthop)},
		{"RTM_NEWNEXTHOPBUCKET", uapi.RTM_NEWNEXTHOPBUCKET, uint64(rt.RTMNewNexthopBucket)},
		{"RTM_DELNEXTHOPBUCKET", uapi.RTM_DELNEXTHOPBUCKET, uint64(rt.RTMDelNexthopBucket)},
		{"RTM_GETNEXTHOPBUCKET", uapi.RTM_GETNEXTHOPBUCKET, uint64(rt.RTMGetNexthopBucket)},

		{"RT_TABLE_UNSPEC", uapi.RT_TABLE_UNSPEC, uint64(rt.TableUnspec)},
		{"RT_TABLE_COMPAT", uapi.RT_TABLE_COMPAT, uint64(rt.TableCompat)},
		{"RT_TABLE_DEFAULT", uapi.RT_TABLE_DEFAULT, uint64(rt.TableDefault)},
		{"RT_TABLE_MAIN", uapi.RT_TABLE_MAIN, uint64(rt.TableMain)},
		{"RT_TABLE_LOCAL", uapi.RT_TABLE_LOCAL, uint64(rt.TableLocal)},

		{"RTN_UNSPEC", uapi.RTN_UNSPEC, uint64(rt.TypeUnspec)},
		{"RTN_UNICAST", uapi.RTN_UNICAST, uint64(rt.TypeUnicast)},
		{"RTN_LOCAL", uapi.RTN_LOCAL, uint64(rt.TypeLocal)},
		{"RTN_BROADCAST", uapi.RTN_BROADCAST, uint64(rt.TypeBroadcast)},
		{"RTN_ANYCAST", uapi.RTN_ANYCAST, uint64(rt.TypeAnycast)},
		{"RTN_MULTICAST", uapi.RTN_MULTICAST, uint64(rt.TypeMulticast)},
		{"RTN_BLACKHOLE", uapi.RTN_BLACKHOLE, uint64(rt.TypeBlackhole)},
		{"RTN_UNREACHABLE", uapi.RTN_UNREACHABLE, uint64(rt.TypeUnreachable)},
		{"RTN_PROHIBIT", uapi.RTN_PROHIBIT, uint64(rt.TypeProhibit)},
		{"RTN_THROW", uapi.RTN_THROW, uint64(rt.TypeThrow)},
		{"RTN_NAT", uapi.RTN_NAT, uint64(rt.TypeNAT)},
		{"RTN_XRESOLVE", uapi.RTN_XRESOLVE, uint64(rt.TypeXResolve)},
		{"RTN_MAX", uapi.RTN_MAX, uint64(rt.TypeMax)},

		{"RT_SCOPE_UNIVERSE", uapi.RT_SCOPE_UNIVERSE, uint64(rt.ScopeUniverse)},
		{"RT_SCOPE_SITE", uapi.RT_SCOPE_SITE, uint64(rt.ScopeSite)},
		{"RT_SCOPE_LINK", uapi.RT_SCOPE_LINK, uint64(rt.ScopeLink)},
		{"RT_SCOPE_HOST", uapi.RT_SCOPE_HOST, uint64(rt.ScopeHost)},
		{"RT_SCOPE_NOWHERE", uapi.RT_SCOPE_NOWHERE, uint64(rt.ScopeNowhere)},

		{"RTPROT_UNSPEC", uapi.RTPROT_UNSPEC, uint64(rt.ProtoUnspec)},
		{"RTPROT_REDIRECT", uapi.RTPROT_REDIRECT, uint64(rt.ProtoRedirect)},
		{"RTPROT_KERNEL", uapi.RTPROT_KERNEL, uint64(rt.ProtoKernel)},
		{"RTPROT_BOOT", uapi.RTPROT_BOOT, uint64(rt.ProtoBoot)},
		{"RTPROT_STATIC", uapi.RTPROT_STATIC, uint64(rt.ProtoStatic)},
		{"RTPROT_DHCP", uapi.RTPROT_DHCP, uint64(rt.ProtoDHCP)},

		{"RTNH_F_DEAD", uapi.RTNH_F_DEAD, uint64(rt.FlagDead)},
		{"RTNH_F_PERVASIVE", uapi.RTNH_F_PERVASIVE, uint64(rt.FlagPervasive)},
		{"RTNH_F_ONLINK", uapi.RTNH_F_ONLINK, uint64(rt.FlagOnLink)},
		{"RTNH_F_OFFLOAD", uapi.RTNH_F_OFFLOAD, uint64(rt.FlagOffload)},
		{"RTNH_F_LINKDOWN", uapi.RTNH_F_LINKDOWN, uint64(rt.FlagLinkDown)},
		{"RTNH_F_UNRESOLVED", uapi.RTNH_F_UNRESOLVED, uint64(rt.FlagUnresolved)},
		{"RTNH_F_TRAP", uapi.RTNH_F_TRAP, uint64(rt.FlagTrap)},
		{"RTNH_COMPARE_MASK", uapi.RTNH_COMPARE_MASK, uint64(rt.CompareMask)},

		{"RTM_F_NOTIFY", uapi.RTM_F_NOTIFY, uint64(rt.RTMFNotify)},
		{"RTM_F_CLONED", uapi.RTM_F_CLONED, uint64(rt.RTMFCloned)},
		{"RTM_F_OFFLOAD", uapi.RTM_F_OFFLOAD, uint64(rt.RTMFOffload)},
		{"RTM_F_TRAP", uapi.RTM_F_TRAP, uint64(rt.RTMFTrap)},
		{"RTM_F_OFFLOAD_FAILED", uapi.RTM_F_OFFLOAD_FAILED, uint64(rt.RTMFOffloadFailed)},

		{"RTAX_LOCK", uapi.RTAX_LOCK, uint64(rt.MetricLock)},
		{"RTAX_MTU", uapi.RTAX_MTU, uint64(rt.MetricMTU)},
		{"RTAX_WINDOW", uapi.RTAX_WINDOW, uint64(rt.MetricWindow)},
		{"RTAX_RTT", uapi.RTAX_RTT, uint64(rt.MetricRTT)},
		{"RTAX_RTTVAR", uapi.RTAX_RTTVAR, uint64(rt.MetricRTTVar)},
		{"RTAX_SSTHRESH", uapi.RTAX_SSTHRESH, uint64(rt.MetricSSThresh)},
		{"RTAX_CWND", uapi.RTAX_CWND, uint64(rt.MetricCwnd)},
		{"RTAX_ADVMSS", uapi.RTAX_ADVMSS, uint64(rt.MetricAdvMSS)},
		{"RTAX_REORDERING", uapi.RTAX_REORDERING, uint64(rt.MetricReordering)},
		{"RTAX_HOPLIMIT", uapi.RTAX_HOPLIMIT, uint64(rt.MetricHopLimit)},
		{"RTAX_INITCWND", uapi.RTAX_INITCWND, uint64(rt.MetricInitCwnd)},
		{"RTAX_FEATURES", uapi.RTAX_FEATURES, uint64(rt.MetricFeatures)},
		{"RTAX_RTO_MIN", uapi.RTAX_RTO_MIN, uint64(rt.MetricRTOMin)},
		{"RTAX_INITRWND", uapi.RTAX_INITRWND, uint64(rt.MetricInitRwnd)},
		{"RTAX_QUICKACK", uapi.RTAX_QUICKACK, uint64(rt.MetricQuickAck)},
		{"RTAX_CC_ALGO", uapi.RTAX_CC_ALGO, uint64(rt.MetricCongCtl)},
		{"RTAX_FASTOPEN_NO_COOKIE", uapi.RTAX_FASTOPEN_NO_COOKIE, uint64(rt.MetricFastOpenNoCookie)},
		{"RTAX_MAX", uapi.RTAX_MAX, uint64(rt.MetricMax)},

		{"IFF_UP", uapi.IFF_UP, uint64(rt.IFFUp)},
		{"IFF_BROADCAST", uapi.IFF_BROADCAST, uint64(rt.IFFBroadcast)},
		{"IFF_DEBUG", uapi.IFF_DEBUG, uint64(rt.IFFDebug)},
		{"IFF_LOOPBACK", uapi.IFF_LOOPBACK, uint64(rt.IFFLoopback)},
		{"IFF_POINTOPOINT", uapi.IFF_POINTOPOINT, uint64(rt.IFFPointToPoint)},
		{"IFF_NOTRAILERS", uapi.IFF_NOTRAILERS, uint64(rt.IFFNoTrailers)},
		{"IFF_RUNNING", uapi.IFF_RUNNING, uint64(rt.IFFRunning)},
		{"IFF_NOARP", uapi.IFF_NOARP, uint64(rt.IFFNoARP)},
		{"IFF_PROMISC", uapi.IFF_PROMISC, uint64(rt.IFFPromisc)},
		{"IFF_ALLMULTI", uapi.IFF_ALLMULTI, uint64(rt.IFFAllMulti)},
		{"IFF_MASTER", uapi.IFF_MASTER, uint64(rt.IFFMaster)},
		{"IFF_SLAVE", uapi.IFF_SLAVE, uint64(rt.IFFSlave)},
		{"IFF_MULTICAST", uapi.IFF_MULTICAST, uint64(rt.IFFMulticast)},
		{"IFF_PORTSEL", uapi.IFF_PORTSEL, uint64(rt.IFFPortSel)},
		{"IFF_AUTOMEDIA", uapi.IFF_AUTOMEDIA, uint64(rt.IFFAutoMedia)},
		{"IFF_DYNAMIC", uapi.IFF_DYNAMIC, uint64(rt.IFFDynamic)},
		{"IFF_LOWER_UP", uapi.IFF_LOWER_UP, uint64(rt.IFFLowerUp)},
		{"IFF_DORMANT", uapi.IFF_DORMANT, uint64(rt.IFFDormant)},
		{"IFF_ECHO", uapi.IFF_ECHO, uint64(rt.IFFEcho)},
	} {
		assert.Equal(t, c.wire, c.rt, c.name)
	}
}
