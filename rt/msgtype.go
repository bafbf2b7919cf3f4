// rtnetlink message types (RTM_*: include/uapi/linux/rtnetlink.h).

package rt

// MsgType is an rtnetlink message type (nlmsg_type), as
// include/uapi/linux/rtnetlink.h numbers them: the requests a front end
// sends and the notifications the kernel multicasts.
type MsgType uint16

// The rtnetlink message types netsim serves or names.
const (
	RTMNewLink          MsgType = 16  // RTM_NEWLINK
	RTMDelLink          MsgType = 17  // RTM_DELLINK
	RTMGetLink          MsgType = 18  // RTM_GETLINK
	RTMSetLink          MsgType = 19  // RTM_SETLINK
	RTMNewAddr          MsgType = 20  // RTM_NEWADDR
	RTMDelAddr          MsgType = 21  // RTM_DELADDR
	RTMGetAddr          MsgType = 22  // RTM_GETADDR
	RTMNewRoute         MsgType = 24  // RTM_NEWROUTE
	RTMDelRoute         MsgType = 25  // RTM_DELROUTE
	RTMGetRoute         MsgType = 26  // RTM_GETROUTE
	RTMNewNeigh         MsgType = 28  // RTM_NEWNEIGH
	RTMDelNeigh         MsgType = 29  // RTM_DELNEIGH
	RTMGetNeigh         MsgType = 30  // RTM_GETNEIGH
	RTMNewRule          MsgType = 32  // RTM_NEWRULE
	RTMDelRule          MsgType = 33  // RTM_DELRULE
	RTMGetRule          MsgType = 34  // RTM_GETRULE
	RTMNewNsid          MsgType = 88  // RTM_NEWNSID
	RTMDelNsid          MsgType = 89  // RTM_DELNSID
	RTMGetNsid          MsgType = 90  // RTM_GETNSID
	RTMNewNexthop       MsgType = 104 // RTM_NEWNEXTHOP
	RTMDelNexthop       MsgType = 105 // RTM_DELNEXTHOP
	RTMGetNexthop       MsgType = 106 // RTM_GETNEXTHOP
	RTMNewNexthopBucket MsgType = 116 // RTM_NEWNEXTHOPBUCKET
	RTMDelNexthopBucket MsgType = 117 // RTM_DELNEXTHOPBUCKET
	RTMGetNexthopBucket MsgType = 118 // RTM_GETNEXTHOPBUCKET
)
