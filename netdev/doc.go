// Package netdev models struct net_device and what happens around it in
// net/core/dev.c and the drivers netsim knows: a namespace's device table
// (ifindex and name indexes, registration order), the kinds loopback,
// dummy, ifb, veth, macvlan, vlan, bond, vrf, bridge (its control plane:
// ports, STP port states without timers, IFLA_BR_* and IFLA_BRPORT_*
// settings; no forwarding or FDB) and vxlan (its configuration and
// checks, its lower device; no FDB or VNI filtering), bringing devices up and down
// with their notifier events, carrier and operstate, the attributes
// do_setlink changes in place (address, MTU, group, name, alias, transmit
// queue length), masters and stacked devices, the unicast and multicast address lists each device keeps and
// syncs to the devices below it (package hwaddr), and the unregister
// pipeline: unregister_netdevice_many → the todo list → netdev_run_todo (one
// rcu_barrier per call) → netdev_wait_allrefs, which polls with WaitFixed
// (msleep(250)) or WaitBackoff (16 ms doubling to 250 ms, seed 002).
//
// It also keeps what the IP layers attach to a device, at the level the
// seeds need: IPv4 addresses (primary and secondary, net/ipv4/devinet.c)
// and IPv6 addrconf-lite (net/ipv6/addrconf.c, mcast.c, anycast.c):
// link-local addresses from the EUI-64, duplicate address detection as
// deferred work, the all-nodes, all-routers, solicited-node and anycast
// groups and the multicast MACs they load into the device's list, the IPv4
// multicast groups (224.0.0.1 while up, a bridge's snoopers' group), and the
// IPv6 routes that hold device references until an RCU callback — or, for
// anycast routes, a chain of two — drops them.
//
// Everything here runs under RTNL, which the caller (package rtnl) holds;
// work is charged to the task passed as first argument. Device.refcnt alone
// is atomic, because RCU callbacks drop references outside RTNL.
package netdev
