// The device vocabulary: ifindex, hardware address, name size, IFF_*
// flags, RFC 2863 operstate (IF_OPER_*), netdev notifier events (enum
// netdev_cmd) and netdev_wait_allrefs's polling policy
// (include/uapi/linux/if.h, include/linux/netdevice.h, net/core/dev.c).

package netdev

import (
	"fmt"
	"strings"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/rt"
)

// IfIndex is an interface index, unique in a network namespace. The zero
// IfIndex is not a valid index (the kernel never assigns 0).
type IfIndex int32

// LoopbackIfIndex is the ifindex of every namespace's loopback device.
const LoopbackIfIndex IfIndex = 1 // LOOPBACK_IFINDEX

// MAC is an Ethernet hardware address. The zero MAC is 00:00:00:00:00:00,
// loopback's address.
type MAC = hwaddr.Addr

// IFNAMSIZ is the size of a device name buffer including the terminating
// NUL: names have at most IFNAMSIZ-1 = 15 bytes.
const IFNAMSIZ = 16

// Flags are a device's IFF_* flags as `ip link` shows them.
type Flags uint32

const (
	FlagUp        = Flags(rt.IFFUp)        // IFF_UP
	FlagBroadcast = Flags(rt.IFFBroadcast) // IFF_BROADCAST
	FlagLoopback  = Flags(rt.IFFLoopback)  // IFF_LOOPBACK
	FlagNoARP     = Flags(rt.IFFNoARP)     // IFF_NOARP
	FlagPromisc   = Flags(rt.IFFPromisc)   // IFF_PROMISC
	FlagAllMulti  = Flags(rt.IFFAllMulti)  // IFF_ALLMULTI
	FlagMaster    = Flags(rt.IFFMaster)    // IFF_MASTER (bond masters)
	FlagSlave     = Flags(rt.IFFSlave)     // IFF_SLAVE (bond slaves)
	FlagMulticast = Flags(rt.IFFMulticast) // IFF_MULTICAST
	FlagLowerUp   = Flags(rt.IFFLowerUp)   // IFF_LOWER_UP (carrier)
)

// String renders flags in `ip link` order, e.g. "BROADCAST,MULTICAST,UP,LOWER_UP"
// (rt.IFFNames).
func (f Flags) String() string {
	var parts []string
	for _, n := range rt.IFFNames {
		if uint32(f)&n.Flag != 0 {
			parts = append(parts, n.Name)
		}
	}
	return strings.Join(parts, ",")
}

// OperState is RFC 2863 operational state (IF_OPER_*). The zero value is
// OperUnknown.
type OperState uint8

const (
	OperUnknown        OperState = 0 // IF_OPER_UNKNOWN
	OperNotPresent     OperState = 1 // IF_OPER_NOTPRESENT
	OperDown           OperState = 2 // IF_OPER_DOWN
	OperLowerLayerDown OperState = 3 // IF_OPER_LOWERLAYERDOWN
	OperTesting        OperState = 4 // IF_OPER_TESTING
	OperDormant        OperState = 5 // IF_OPER_DORMANT
	OperUp             OperState = 6 // IF_OPER_UP
)

// String returns the name `ip link` prints ("UP", "DOWN", "LOWERLAYERDOWN",
// ...; rt.OperStateNames).
func (s OperState) String() string {
	if int(s) < len(rt.OperStateNames) {
		return rt.OperStateNames[s]
	}
	return fmt.Sprintf("OPER(%d)", uint8(s))
}

// Event is a netdev notifier event (enum netdev_cmd).
type Event uint8

const (
	EventUp             Event = iota + 1 // NETDEV_UP
	EventDown                            // NETDEV_DOWN
	EventChange                          // NETDEV_CHANGE: carrier or operstate changed
	EventRegister                        // NETDEV_REGISTER
	EventUnregister                      // NETDEV_UNREGISTER
	EventChangeMTU                       // NETDEV_CHANGEMTU
	EventChangeAddr                      // NETDEV_CHANGEADDR
	EventGoingDown                       // NETDEV_GOING_DOWN
	EventChangeName                      // NETDEV_CHANGENAME
	EventPreUp                           // NETDEV_PRE_UP
	EventChangeUpper                     // NETDEV_CHANGEUPPER
	EventPreChangeUpper                  // NETDEV_PRECHANGEUPPER
)

var eventNames = [...]string{
	EventUp: "NETDEV_UP", EventDown: "NETDEV_DOWN", EventChange: "NETDEV_CHANGE",
	EventRegister: "NETDEV_REGISTER", EventUnregister: "NETDEV_UNREGISTER",
	EventChangeMTU: "NETDEV_CHANGEMTU", EventChangeAddr: "NETDEV_CHANGEADDR",
	EventGoingDown: "NETDEV_GOING_DOWN", EventChangeName: "NETDEV_CHANGENAME",
	EventPreUp: "NETDEV_PRE_UP", EventChangeUpper: "NETDEV_CHANGEUPPER",
	EventPreChangeUpper: "NETDEV_PRECHANGEUPPER",
}

// String returns the kernel name of the event, e.g. "NETDEV_UP".
func (e Event) String() string {
	if int(e) < len(eventNames) && eventNames[e] != "" {
		return eventNames[e]
	}
	return fmt.Sprintf("NETDEV_EVENT(%d)", uint8(e))
}

// WaitPolicy is how netdev_wait_allrefs polls for the last references of an
// unregistered device (seed 002).
type WaitPolicy uint8

const (
	// WaitFixed polls every 250 ms (msleep(250)), as before the patch.
	WaitFixed WaitPolicy = iota
	// WaitBackoff polls after 16 ms, doubling up to 250 ms (v3 of the patch
	// "net: use exponential backoff in netdev_wait_allrefs").
	WaitBackoff
)

// String returns "fixed" or "backoff".
func (p WaitPolicy) String() string {
	switch p {
	case WaitFixed:
		return "fixed"
	case WaitBackoff:
		return "backoff"
	}
	return fmt.Sprintf("WaitPolicy(%d)", uint8(p))
}
