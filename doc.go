// Package netsim is a pure-Go, in-memory simulator of the Linux kernel's
// network control plane: net_device registration and teardown, device
// hardware address lists, IPv4 and IPv6 interface addresses, the IPv4 FIB
// (an LC-trie shaped like the kernel's), the IPv6 FIB (the kernel's
// fib6_node radix tree), nexthop objects and policy routing rules, under a simulated RTNL lock with virtual time and RCU.
//
// It reproduces, measures and explains control-plane scalability behaviour
// — the "before" and the "after" of real kernel patches — without root or a
// VM, deterministically, at the patches' full scale, in seconds.
//
// Two kinds of cost are reported side by side. Real work: the data
// structures are real (linked lists and red-black trees of hardware
// addresses, device tables), and every structure counts its work in
// deterministic counters (keys compared, notifier calls, rcu_barriers run).
// Virtual time: the counted work converted by a cost model (sim.Costs), plus
// the sleeps, RCU grace periods and lock waits the kernel would have spent,
// none of which is slept for real.
//
// The packages, from the bottom up:
//
//   - sim: virtual time, tasks, virtual CPUs, simulated locks, RCU, costs,
//     counters, traces.
//   - hwaddr: net/core/dev_addr_lists.c, with the ListOnly and TreeIndexed
//     policies of seed 001.
//   - netdev: net_device and its kinds (loopback, dummy, ifb, veth, macvlan,
//     vlan, bond, vrf, bridge, vxlan), up/down, the unregister pipeline with the WaitFixed and
//     WaitBackoff policies of seed 002, IPv4 addresses and IPv6 addrconf.
//   - fib: net/ipv4/fib_trie.c and friends — the LC-trie, fib_info and
//     fib_alias, tables, lookups, flushes.
//   - fib6: net/ipv6/ip6_fib.c and route.c — the fib6_node tree with
//     source-specific subtrees, fib6_info and multipath siblings, walkers,
//     lookups, device events and addrconf's routes.
//   - nexthop: net/ipv4/nexthop.c, with the FlushPerNexthop and
//     FlushDeferred policies of seed 000.
//   - fibrules: policy routing rules, with the LockRTNL and LockPerOps
//     policies of seed 003.
//   - rt: the rtnetlink vocabulary (families, route types, scopes,
//     protocols, table ids, flags) and its name tables, shared by the model
//     and the front ends.
//   - errno: the kernel's errors, an errno with its extack message.
//   - rtnl: the simulated kernel — RTNL, network namespaces, rtnetlink
//     requests through a Handle (links, addresses, routes, nexthops, rules),
//     their notifications, bulk deletion by group and by ifindex list (seed 004) — with the
//     Before and After configurations.
//   - iproute: iproute2 6.1's ip command on a simulated kernel (parser,
//     printer with text and JSON output, batch), byte for byte.
//   - nlwire: the rtnetlink wire protocol served from a simulated
//     namespace, as a github.com/mdlayher/netlink socket: Go agent code
//     written against mdlayher/netlink or jsimonetti/rtnetlink runs
//     against netsim without root, notifications included.
//   - scenario: experiments as functions returning reports.
//   - cmd/netsim: the command line.
//
// A minimal session:
//
//	k := rtnl.MustNewKernel(rtnl.After)
//	t := k.World().NewTask("ip")
//	h := k.InitNet().Handle(t)
//	h.LinkAdd(netdev.Dummy{Name: "eth0"})
//	h.LinkSetUp("eth0")
//	fmt.Println(t.Now(), k.Counters())
package netsim
