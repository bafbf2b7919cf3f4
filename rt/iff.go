// Interface flags (IFF_*: include/uapi/linux/if.h), operational states and
// link modes by name as ip prints them, and device group names
// (print_link_flags: ip/ipaddress.c; rtnl_group_n2a: lib/rt_names.c).

package rt

import "strconv"

// Interface flags (IFF_*, include/uapi/linux/if.h) that ip prints.
const (
	IFFUp           uint32 = 0x1     // IFF_UP
	IFFBroadcast    uint32 = 0x2     // IFF_BROADCAST
	IFFDebug        uint32 = 0x4     // IFF_DEBUG
	IFFLoopback     uint32 = 0x8     // IFF_LOOPBACK
	IFFPointToPoint uint32 = 0x10    // IFF_POINTOPOINT
	IFFNoTrailers   uint32 = 0x20    // IFF_NOTRAILERS
	IFFRunning      uint32 = 0x40    // IFF_RUNNING
	IFFNoARP        uint32 = 0x80    // IFF_NOARP
	IFFPromisc      uint32 = 0x100   // IFF_PROMISC
	IFFAllMulti     uint32 = 0x200   // IFF_ALLMULTI
	IFFMaster       uint32 = 0x400   // IFF_MASTER
	IFFSlave        uint32 = 0x800   // IFF_SLAVE
	IFFMulticast    uint32 = 0x1000  // IFF_MULTICAST
	IFFPortSel      uint32 = 0x2000  // IFF_PORTSEL
	IFFAutoMedia    uint32 = 0x4000  // IFF_AUTOMEDIA
	IFFDynamic      uint32 = 0x8000  // IFF_DYNAMIC
	IFFLowerUp      uint32 = 0x10000 // IFF_LOWER_UP
	IFFDormant      uint32 = 0x20000 // IFF_DORMANT
	IFFEcho         uint32 = 0x40000 // IFF_ECHO
)

// IFFNames are the interface flags by name, in the order iproute2's
// print_link_flags prints them (IFF_RUNNING is not among them: ip shows
// its absence on a device that is up as NO-CARRIER).
var IFFNames = []struct {
	Flag uint32
	Name string
}{
	{IFFLoopback, "LOOPBACK"}, {IFFBroadcast, "BROADCAST"}, {IFFPointToPoint, "POINTOPOINT"},
	{IFFMulticast, "MULTICAST"}, {IFFNoARP, "NOARP"}, {IFFAllMulti, "ALLMULTI"},
	{IFFPromisc, "PROMISC"}, {IFFMaster, "MASTER"}, {IFFSlave, "SLAVE"}, {IFFDebug, "DEBUG"},
	{IFFDynamic, "DYNAMIC"}, {IFFAutoMedia, "AUTOMEDIA"}, {IFFPortSel, "PORTSEL"},
	{IFFNoTrailers, "NOTRAILERS"}, {IFFUp, "UP"}, {IFFLowerUp, "LOWER_UP"},
	{IFFDormant, "DORMANT"}, {IFFEcho, "ECHO"},
}

// OperStateNames are the operational states (IF_OPER_*) by value, as ip
// prints them.
var OperStateNames = []string{"UNKNOWN", "NOTPRESENT", "DOWN", "LOWERLAYERDOWN", "TESTING", "DORMANT", "UP"}

// LinkModeNames are the link modes (IF_LINK_MODE_*) by value.
var LinkModeNames = []string{"DEFAULT", "DORMANT"}

// GroupName is rtnl_group_n2a without /etc/iproute2/group: "default" for
// group 0, else the number.
func GroupName(g uint32) string {
	if g == 0 {
		return "default"
	}
	return strconv.FormatUint(uint64(g), 10)
}
